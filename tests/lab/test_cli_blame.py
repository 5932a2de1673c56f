"""An error raised in the learner's own stage names their exercise: one line, status 2
(``ctxlab.workbook.blame``). A stage-1 loop that drops the session is the first such error a
learner meets: it passes a run with no layer and breaks every stage that plugs one in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxlab.cli import main
from ctxlab.workbook.layout import STAGES
from ctxlab.workbook.manage import reference

DROPS_THE_SESSION = ("layer.prepare(messages, session)", "layer.prepare(messages)")
THROUGH_A_HELPER = ("            messages = layer.prepare(messages, session)\n",
                    "            messages = _prepared(layer, messages)\n")
HELPER = "\n\ndef _prepared(layer, messages):\n    return layer.prepare(messages)\n"


def workbook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *edit: str,
             tail: str = "") -> None:
    """A learner's workbook: every stage written as the reference but for one edit of
    stage 1's loop."""
    for stage in STAGES:
        for rel, text in reference(stage).items():
            if stage.number == 1 and rel == "loop.py":
                assert edit[0] in text
                text = text.replace(*edit) + tail
            path = tmp_path / stage.package / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("CTXLAB_STAGES_ROOT", str(tmp_path))


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("argv", [
    ["compare", "--impl", "stages", "--scenario", "bugfix-small"],
    ["run", "--impl", "stages", "--chain", "mine", "--stage", "2", "--scenario", "bugfix-small"],
], ids=["compare", "run-chain-mine"])
def test_a_loop_that_drops_the_session_is_named(argv: list[str], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one line, however long: soft-wrapped, never cut
    workbook(tmp_path, monkeypatch, *DROPS_THE_SESSION)
    assert main(argv) == 2
    line = one_line(capsys)
    assert line.startswith("error: in your exercise 1.1, run_loop() ("), line
    assert re.search(r"s1_loop/loop\.py:\d+\): TypeError: .*prepare\(\) missing 1 required "
                     r"positional argument: 'session'", line), line
    assert "`ctxlab hint 1.1`" in line and "internal error" not in line


def test_the_exercise_is_named_when_the_error_is_raised_in_a_helper_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The innermost of the learner's frames that is an exercise: ``run_loop`` called the
    learner's own ``_prepared``, which dropped the session."""
    monkeypatch.setenv("COLUMNS", "400")
    workbook(tmp_path, monkeypatch, *THROUGH_A_HELPER, tail=HELPER)
    assert main(["run", "--impl", "stages", "--chain", "mine", "--stage", "2",
                 "--scenario", "bugfix-small"]) == 2
    assert one_line(capsys).startswith("error: in your exercise 1.1, run_loop() (")

