"""``ctxlab room`` without grading a room: its one-line errors, and the rows of a stage whose
run never reached a test (the graded room is ``test_room.py``'s, in ``make reliability``)."""

from __future__ import annotations

import pytest

from ctxlab.cli import main
from ctxlab.workbook import points


def test_bad_paths_are_one_line_errors(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["room", str(tmp_path / "nowhere")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["room", str(tmp_path / "empty"), "--stages", "1"]) == 2
    assert "no submission found" in capsys.readouterr().err


def test_without_a_selection_every_exercise_and_cell_counts_even_when_nothing_ran() -> None:
    """A stage whose run never got to a test (it crashed at collection) is still graded out
    of the full points, with the same row names ``ctxlab grade`` gives the ladder's cells."""
    from ctxlab.ladder import LADDER, NA, Cell
    from ctxlab.room.room import _rows, _universe
    from ctxlab.room.run import CRASH, Run
    from ctxlab.workbook import grade as grading
    from ctxlab.workbook.layout import stage

    universe = _universe(stage(2), [], every=True)
    records = [{"nodeid": f"tests/ladder/test_ladder.py::test_cell[{r.id}[{k}]]", "stage": 2,
                "outcome": "xfailed", "exercise": None, "not_implemented": False,
                "pitfall": {"fixed_in": r.fixed_in, "why": f"{r.section} {r.why}"},
                "message": "", "evidence": "e"}
               for r in LADDER for k, v in r.cells.items()
               if v != NA and Cell.parse(k).stage == 2]
    cells = [r.item for r in grading.classify(stage(2), records) if r.item.startswith("pitfall")]
    assert [u for u in universe if u.startswith("pitfall")] == cells
    rows = _rows(stage(2), Run([], CRASH, detail="exit code 2"), universe)
    assert len(rows) == len(universe) and {r.status for r in rows} == {"CRASH"}
    assert sum(s.max for s in points.score(rows)) == sum(
        points.load().of_exercise(e) for e in ("2.1", "2.2", "2.3", "2.4", "2.5")) + sum(
        points.load().of_rung(r.id) for r in LADDER for k, v in r.cells.items()
        if v != NA and Cell.parse(k).stage == 2)


def test_without_a_jail_the_room_refuses_unless_told(
        tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The jail made unavailable (as on macOS, or where user namespaces are forbidden): one
    line, exit code 2, nothing graded; with ``--no-jail`` the room is graded unjailed and the
    report says so (the grading itself is ``test_room_tamper.py``'s, which runs unjailed)."""
    from pathlib import Path

    from ctxlab import jail
    from ctxlab.commands import room_cmd
    from ctxlab.room.room import Participant
    from ctxlab.room.submissions import Submission

    monkeypatch.setattr(jail, "probe", lambda: jail.Status(False, "no bwrap on PATH"))
    graded: list[bool] = []

    def grade_room(*args: object, jailed: bool, **kwargs: object) -> list[Participant]:
        graded.append(jailed)
        return [Participant(Submission("ann", Path("ann"), None), runs={1: "missing"},
                            seconds={1: 0.0})]

    monkeypatch.setattr(room_cmd, "grade_room", grade_room)
    assert main(["room", str(tmp_path), "--stages", "1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no bwrap on PATH" in err
    assert "--no-jail" in err and graded == []
    assert main(["room", str(tmp_path), "--stages", "1", "--no-jail"]) == 0
    out, err = capsys.readouterr()
    assert graded == [False] and "Unjailed" in err and "Unjailed" in out
    assert main(["room", str(tmp_path), "--stages", "1", "--no-jail", "--json"]) == 0
    assert '"jailed": false' in capsys.readouterr().out
