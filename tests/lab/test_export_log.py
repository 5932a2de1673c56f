"""``ctxlab run --export-log``: a run written as a Claude Code session log, line by line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxlab.cli import main
from ctxlab.replay import load_transcript
from ctxlab.runner import run


def test_a_run_reads_back_as_the_same_conversation(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    result = run(None, "bugfix-small", export_log=path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assistant = [line for line in lines if line["type"] == "assistant"]
    assert all(len(line["message"]["content"]) == 1 for line in lines)  # one block a line
    ids = list(dict.fromkeys(line["message"]["id"] for line in assistant))
    agent = [r for r in result.records if r.kind == "agent"]
    assert len(ids) == len(agent)
    outputs = {line["message"]["id"]: line["message"]["usage"]["output_tokens"]
               for line in assistant}
    assert [outputs[i] for i in ids] == [r.output_tokens for r in agent]
    chained = zip(lines, lines[1:], strict=False)
    assert all(line["parentUuid"] == before["uuid"] for before, line in chained)
    transcript = load_transcript(path)
    assert transcript.report.duplicates_dropped == 0 and not transcript.report.synthetic_results
    assert transcript.messages == result.original


def test_the_export_is_a_new_file_and_the_help_says_what_it_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "taken.jsonl"
    taken.write_text("{}\n")
    assert main(["run", "--scenario", "bugfix-small", "--export-log", str(taken)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert taken.read_text() == "{}\n"
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "Claude Code session log (not telemetry" in shown and "telemetry (JSONL" in shown
