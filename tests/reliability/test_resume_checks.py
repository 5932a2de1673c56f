"""What a resume must check and report (issue 18): the same manifest, verified files, the same
settings, half-made workspaces, corrupt journals and side logs."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest
from faultkit import Bench, layer_options
from s4_summarize.transcript import TRANSCRIPT, read_transcript
from s5_pipeline.ledger import LOG, Ledger

from ctxlab import runner
from ctxlab.cli import main
from ctxlab.journal import JOURNAL, RUN_FILE, JournalError, begin, resume_point
from ctxlab.loss import CHECKSUMS, ON_DISK

CASES = [(3, "parallel-burst", None, 5), (4, "constraint", "ctxlab-sim-32k", 8),
         (5, "constraint", "ctxlab-sim-32k", 5)]  # crashed after offloads and summaries


class Killed(BaseException):
    """Stands for the process dying."""


def _run(stage: int, scenario: str, model: str | None, **options: Any) -> Any:
    bench = Bench(scenario)
    return runner.run(stage, scenario, model=model, simulator=bench.sim,
                      layer_options=layer_options(stage) if stage >= 4 else None, **options)


def _crash(workspace: Path, stage: int, scenario: str, model: str | None, turn: int) -> None:
    def die(record: Any) -> None:
        if record.kind == "agent" and record.turn == turn:
            raise Killed

    with pytest.raises(Killed):
        _run(stage, scenario, model, workspace=workspace, on_record=die)


@pytest.mark.parametrize(("stage", "scenario", "model", "turn"), CASES)
def test_the_manifest_after_a_resume_is_the_uninterrupted_runs(
        tmp_path: Path, stage: int, scenario: str, model: str | None, turn: int) -> None:
    full = _run(stage, scenario, model)
    _crash(tmp_path / "ws", stage, scenario, model, turn=turn)
    resumed = _run(stage, scenario, model, workspace=tmp_path / "ws", resume=True)
    assert resumed.loss.to_dict() == full.loss.to_dict()
    assert resumed.original == full.original
    assert full.loss.with_status(ON_DISK)  # there is something whose place could be lost


def test_an_offloaded_file_lost_before_the_resume_is_reported(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    workspace = tmp_path / "ws"
    _crash(workspace, 3, "parallel-burst", None, turn=5)
    recorded = [json.loads(line) for line in (workspace / CHECKSUMS).read_text().splitlines()]
    assert len(recorded) >= 2 and all(len(r["sha256"]) == 64 for r in recorded)
    deleted, truncated = recorded[0]["path"], recorded[1]["path"]
    (workspace / deleted).unlink()
    (workspace / truncated).write_text("cut")
    with caplog.at_level(logging.WARNING, logger="ctxlab"):
        resumed = _run(3, "parallel-burst", None, workspace=workspace, resume=True)
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert f"{deleted}: missing" in warned and f"{truncated}: changed" in warned
    lost = {i.key: i.why for i in resumed.loss.lost()}
    name = {Path(p).stem: why for p, why in ((deleted, "missing"), (truncated, "changed"))}
    for tool_id, why in name.items():
        assert tool_id in lost and f"offloaded file {why}" in lost[tool_id]


def test_a_resume_with_other_settings_is_refused(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    workspace = tmp_path / "ws"
    _crash(workspace, 5, "bugfix-small", None, turn=3)
    for stage, scenario, model in ((5, "long-task", None), (4, "bugfix-small", None),
                                   (5, "bugfix-small", "claude-sonnet-4-6")):
        with pytest.raises(JournalError, match="holds the run of stage 5 on bugfix-small"):
            _run(stage, scenario, model, workspace=workspace, resume=True)
    code = main(["run", "--stage", "5", "--scenario", "long-task", "--workspace",
                 str(workspace), "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and "stage 5 on bugfix-small" in err and "Traceback" not in err
    assert _run(5, "bugfix-small", None, workspace=workspace, resume=True).summary.success


def test_a_workspace_killed_before_its_first_request_starts_over(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    workspace = tmp_path / "ws"
    begin(workspace, {"stage": 3, "scenario": "bugfix-small",
                      "model": runner.scenarios.load("bugfix-small").model})
    (workspace / "half-copied.py").write_text("# the copy was cut short here")
    assert main(["run", "--stage", "3", "--scenario", "bugfix-small", "--workspace",
                 str(workspace)]) == 2  # a fresh run still refuses a folder that is not empty
    assert "not an empty folder" in capsys.readouterr().err
    result = _run(3, "bugfix-small", None, workspace=workspace, resume=True)
    assert result.summary.success
    assert not (workspace / "half-copied.py").exists() and (workspace / RUN_FILE).is_file()
    assert resume_point(workspace).requests == result.summary.turns


@pytest.mark.parametrize("line", [
    {"keep": 0, "add": [{"role": "user"}]},                           # no content
    {"keep": 0},                                                      # no add
    {"add": [{"role": "user", "content": "x"}]},                      # no keep
    {"keep": 0, "add": [{"role": "user", "content": [{"text": 1}]}]},  # a block without type
    {"keep": True, "add": []},                                        # a bool is not a count
    {"keep": 0, "add": [{"role": "user", "content": "x"}], "okeep": 0, "oadd": "x"},
])
def test_a_journal_line_missing_a_field_is_corrupt(tmp_path: Path, line: dict[str, Any],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / JOURNAL).parent.mkdir(parents=True)
    (tmp_path / JOURNAL).write_text(json.dumps(line) + "\n")
    with pytest.raises(JournalError, match="the session journal is corrupt"):
        resume_point(tmp_path)
    code = main(["run", "--stage", "3", "--scenario", "bugfix-small", "--workspace",
                 str(tmp_path), "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and "journal is corrupt" in err and "KeyError" not in err


def test_every_side_log_reports_its_corrupted_lines(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    good = json.dumps({"id": "toolu_1", "layer": "snip", "content": "x"})
    for relative in (LOG, LOG.with_name("user-texts.jsonl"), TRANSCRIPT):
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'{good}\n{{"broken": \n{good}\n[1, 2]\n{{"torn": "li')
    with caplog.at_level(logging.WARNING, logger="ctxlab"):
        ledger = Ledger(tmp_path)
        ledger.notes("user-texts")
        read_transcript(tmp_path / TRANSCRIPT)
    messages = [r.getMessage() for r in caplog.records]
    for relative in (LOG, LOG.with_name("user-texts.jsonl"), TRANSCRIPT):
        mine = [m for m in messages if str(tmp_path / relative) in m]
        assert any("line 2 is not valid JSON" in m for m in mine), (relative, messages)
        assert any("line 4 is not a JSON object" in m for m in mine)
        assert any("line 5 is a torn last line" in m for m in mine)
    assert "toolu_1" in ledger.decisions


def test_a_planted_link_stops_a_run_with_a_clear_error(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """A session folder replaced by a link to a folder outside: the resume refuses to write
    through it, and says so in one line."""
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    _crash(workspace, 5, "bugfix-small", None, turn=3)
    shutil.move(workspace / ".ctxlab-session", outside)
    (workspace / ".ctxlab-session").symlink_to(outside)
    before = sorted(p.name for p in outside.iterdir())
    code = main(["run", "--stage", "5", "--scenario", "bugfix-small", "--workspace",
                 str(workspace), "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and "symlink" in err and "Traceback" not in err
    assert sorted(p.name for p in outside.iterdir()) == before
