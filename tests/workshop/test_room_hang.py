"""``ctxlab room`` against a submission that hangs: a zip whose exercise 1.2 tries to write
outside its copy and then waits forever, with a member that climbs out of its folder. Grading
it waits out the time limit, so it is a ``reliability`` check (``make reliability``)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from ctxlab.room import board

from .conftest import ESCAPED, TIMEOUT, Room

pytestmark = pytest.mark.reliability


def test_a_hang_is_cut_at_the_time_limit_and_costs_only_its_own_stage(hung: Room) -> None:
    (hang,) = hung.graded
    assert hang.name == "hang"
    assert hang.runs == {1: "time-out", 2: "ok"}
    stage1 = [s for s in hang.scored if s.stage == 1]
    assert {s.status for s in stage1} == {"TIME-OUT"}
    assert all(f"time limit of {TIMEOUT} s" in s.detail and "test_text_blocks" in s.detail
               for s in stage1 if s.item.startswith("exercise 1.2"))
    assert hang.points(1)[0] == 0 and hang.points(2)[0] == hang.points(2)[1] > 0


def test_a_write_outside_the_copy_is_stopped_and_reported(hung: Room) -> None:
    escaped = hung.base / ESCAPED  # where the hanging submission writes, outside its copy
    assert not escaped.exists()  # the jail has no such folder ...
    assert hung.graded[0].outside == [str(escaped.resolve())]  # ... and the try is reported


def test_a_member_that_climbs_out_is_not_unpacked(hung: Room) -> None:
    assert not (hung.base / "outside.txt").exists()
    assert not (hung.base / "work" / "outside.txt").exists()
    assert any("'../outside.txt'" in note for note in hung.graded[0].notes)


def test_the_board_says_time_out(hung: Room) -> None:
    console = Console(width=80, record=True, file=io.StringIO(), color_system=None)
    board.show(console, hung.graded, [1, 2])
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    # with ``--select`` a room grades what some run tested: here, up to the hang in 1.2
    assert "s1 time-out" in text and f"TIME-OUT: 1.2 — time limit of {TIMEOUT} s" in text
