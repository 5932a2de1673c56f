"""``ctxlab ladder``: the table as JSON, Markdown and text (cells without runs, to stay fast)."""

from __future__ import annotations

import json

import pytest

from ctxlab.cli import main


def test_json_lists_each_cell_with_its_evidence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "--rung", "dead-layer", "--stage", "3", "--json"]) == 0
    (rung,) = json.loads(capsys.readouterr().out)["rungs"]
    assert rung["id"] == "dead-layer" and rung["fixed_in"] == 5 and rung["section"] == "§12.8"
    assert rung["stages"] == {"3": {"status": "n/a", "evidence":
                                    "acceptance checks the stage-5 pipeline's layers"}}


def test_text_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "--rung", "thrash", "--stage", "1"]) == 0
    text = capsys.readouterr().out
    assert "thrash (§12.2, fixed in stage 3)" in text and "n/a" in text
    assert all(len(line) <= 80 for line in text.splitlines())
    assert main(["ladder", "--rung", "thrash", "--stage", "1", "--markdown"]) == 0
    assert "| `thrash` (§12.2) | n/a | — | — | — | — | 3 |" in capsys.readouterr().out


def test_an_unknown_rung_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["ladder", "--rung", "no-such-rung"])
    assert stop.value.code == 2


def test_an_in_process_command_leaves_the_implementation_as_it_was(
        capsys: pytest.CaptureFixture[str]) -> None:
    from ctxlab.workbook.router import FINDER

    before = FINDER.selection
    assert main(["ladder", "--rung", "dead-layer", "--stage", "1", "--impl", "stages",
                 "--json"]) == 0
    assert FINDER.selection == before  # tests and notebooks call main() in-process
