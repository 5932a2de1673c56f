"""``ctxlab room``: a room of synthetic submissions on stages 1–2 (issue: workshops).

Pristine stubs, a complete solution, one whose exercise 2.4 is wrong and whose test of it was
edited to pass, one (a tar.gz with a link and an absolute path in it) whose exercise 2.5 kills
the process, the handout with pytest's ``runtest`` replaced by one line, and a zip with two
members of one name. The one that hangs is ``test_room_hang.py``'s. Grading the room starts
about a dozen pytest sessions and grades nothing a learner writes, so these are ``reliability``
checks (``make reliability``); its one-line errors and rows are ``test_room_rows.py``'s.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from rich.console import Console

from ctxlab.cli import main
from ctxlab.commands import room_cmd
from ctxlab.room import board
from ctxlab.workbook import points

from .conftest import Room

pytestmark = pytest.mark.reliability


def _exercise_points(numbers: list[str]) -> int:
    table = points.load()
    return sum(table.of_exercise(n) for n in numbers)


def _statuses(room: Room, name: str, stage: int) -> dict[str, str]:
    return {s.item.split()[1] if s.kind == "exercise" else s.item: s.status
            for s in room[name].scored if s.stage == stage}


def test_every_submission_is_found_and_nothing_else(room: Room) -> None:
    assert sorted(p.name for p in room.graded) == [
        "cheat", "complete", "crash", "dup", "pristine", "tampered"]


def test_the_scoreboard(room: Room) -> None:
    complete, pristine = room["complete"], room["pristine"]
    worth = complete.points()[1]
    assert [p.points()[1] for p in room.graded] == [worth] * 6  # one max for the whole room
    s1, s2 = complete.points(1)[1], complete.points(2)[1]
    assert s1 >= _exercise_points(["1.1", "1.2", "1.3"]) and s1 + s2 == worth
    assert complete.points() == (worth, worth)
    exercises = [s for s in pristine.scored if s.kind == "exercise"]
    assert {s.status for s in exercises} == {"TODO"} and sum(s.points for s in exercises) == 0
    # the tampered one: graded with the instructor's test, so exercise 2.4 fails for real
    ladder2 = sum(s.max for s in room["tampered"].scored if s.stage == 2 and s.kind == "pitfall")
    assert ladder2 > 0 and sum(s.points for s in pristine.scored) == 0  # stubs score nothing
    assert room["tampered"].points() == (worth - _exercise_points(["2.4"]) - ladder2, worth)


def test_an_edited_test_is_ignored_and_reported(room: Room) -> None:
    tampered = room["tampered"]
    assert tampered.ignored_edits == ["changed tests/s2/test_valid.py"]
    assert _statuses(room, "tampered", 2)["2.4"] == "REGRESSION"
    failing = next(s for s in tampered.scored if s.item.startswith("exercise 2.4"))
    assert "test_same_wording_as_the_api" in failing.detail and "assert None ==" in failing.detail
    assert all(not p.ignored_edits for p in room.graded if p.name != "tampered")


def test_every_run_finishes_but_the_ones_that_cannot(room: Room) -> None:
    assert all(p.runs == {1: "ok", 2: "ok"} for p in room.graded
               if p.name not in ("crash", "dup")), {p.name: p.runs for p in room.graded}


def test_a_crash_keeps_what_finished_before_it(room: Room) -> None:
    crash = room["crash"]
    assert crash.runs == {1: "ok", 2: "crash"}
    statuses = _statuses(room, "crash", 2)
    assert statuses["2.5"] == "CRASH"  # the exercise it was in
    assert statuses["2.2"] == statuses["2.3"] == "DONE"  # tests/s2/test_rounds_and_cut.py ran first
    detail = next(s.detail for s in crash.scored if s.item.startswith("exercise 2.5"))
    assert "exit code 3" in detail and "test_no_calls" in detail
    assert crash.points(1) == room["complete"].points(1)


def test_a_faked_outcome_scores_zero_and_says_what_was_found(room: Room) -> None:
    """The handout plus ``Function.runtest = lambda self: None``: inside its process every
    test it reaches passes (30 of 45 on stage 1 before the sentinel); graded, stage 1 is 0."""
    cheat, pristine = room["cheat"], room["pristine"]
    assert cheat.tampered == [  # what the grader reads in the source, what the sentinel saw
        "s1: the submission carries pytest machinery: s1_loop/loop.py:33: imports _pytest.python",
        "s1: _pytest.python.Function.runtest was replaced"]
    stage1 = [s for s in cheat.scored if s.stage == 1]
    assert {s.status for s in stage1} == {"TAMPERED"} and sum(s.points for s in stage1) == 0
    assert cheat.points(2) == pristine.points(2)  # its honest stage is graded as usual
    assert all(not p.tampered for p in room.graded if p.name != "cheat")


def test_an_archive_that_cannot_be_unpacked_is_one_rejected_row(room: Room) -> None:
    dup = room["dup"]
    assert dup.submission.rejected == "dup.zip: two members named 'stages/s1_loop/loop.py'"
    assert dup.points() == (0, room["complete"].points()[1])
    assert {s.status for s in dup.scored} == {"REJECTED"}
    assert dup.runs == {1: "missing", 2: "missing"}


def test_archives_are_unpacked_without_leaving_their_folder(room: Room) -> None:
    assert not (room.base / "outside.txt").exists()
    assert not (room.base / "work" / "outside.txt").exists()
    notes = room["crash"].notes
    assert any("'crash/stages/escape'" in n and "link" in n for n in notes), notes
    assert any("'/tmp/absolute.txt'" in n and "leaves" in n for n in notes), notes
    assert not list((room.base / "work").rglob("escape"))


def test_the_board_reads_at_80_columns(room: Room) -> None:
    console = Console(width=80, record=True, file=io.StringIO(), color_system=None)
    board.show(console, room.graded, [1, 2])
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    worth = room["complete"].points()[1]
    assert f"{worth}/{worth}" in text and "tests edited" in text
    assert "ignored edit: changed tests/s2/test_valid.py" in text
    assert "REGRESSION: 2.4 — test_same_wording_as_the_api" in text
    assert "TODO: 1.1, 1.2, 1.3, " in text and ", 2.1, 2.2, 2.3, 2.4, 2.5" in text  # pristine
    assert "s1 tampered" in text and "tampered: s1: _pytest.python.Function.runtest" in text
    assert "rejected: dup.zip: two members named" in text


@pytest.mark.parametrize("form", ["--json", "--csv", None])
def test_the_command_prints_the_board_csv_and_json(
        room: Room, form: str | None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(room_cmd, "grade_room", lambda *a, **k: room.graded)
    assert main(["room", str(room.base), "--stages", "1,2", *([form] if form else [])]) == 0
    out = capsys.readouterr().out
    if form == "--json":
        data = json.loads(out)
        assert {p["name"]: (p["total"], p["max"]) for p in data["participants"]} == \
            {p.name: p.points() for p in room.graded}
        assert data["participants"][0]["stages"]["1"]["run"] in ("ok", "time-out", "missing")
        assert (data["graded"], data["rejected"]) == (5, 1)
        rows = {p["name"]: p for p in data["participants"]}
        assert rows["dup"]["rejected"].startswith("dup.zip: two members named")
        assert rows["cheat"]["tampered"] == room["cheat"].tampered
        assert all(not p["tampered"] and not p["rejected"] for n, p in rows.items()
                   if n not in ("cheat", "dup"))
    elif form == "--csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert {r["participant"]: (int(r["total"]), int(r["max"])) for r in rows} == \
            {p.name: p.points() for p in room.graded}
    else:
        assert "Room scoreboard" in out
