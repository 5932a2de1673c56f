"""Habits estimated per session with a bootstrap interval, and left out one source at a time:
a few long sessions cannot dominate, and a source too small to settle a habit says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_calibrate import Log, text

from ctxlab.calibrate.estimate import HABITS, estimate, weighted
from ctxlab.calibrate.habits import Habits
from ctxlab.calibrate.realism import verdict
from ctxlab.calibrate.sources import leave_one_out, source_of
from ctxlab.cli import main


def reads(n: int, again: int) -> Habits:
    """A session of ``n`` reads, ``again`` of them re-reads of a file in view."""
    return Habits(reads=n, rereads=again)


def test_a_long_session_weighs_as_much_as_a_typical_one() -> None:
    units = [(0.5, 400), (0.0, 4), (0.0, 4), (0.0, 4)]
    pooled = sum(x * n for x, n in units) / sum(n for _, n in units)
    assert pooled == pytest.approx(0.485, abs=1e-3)  # the long session is "the" habit
    assert weighted(units) == pytest.approx(0.125)  # it counts as one session of 4 reads
    # nor does a session with a single read swing it, as equal weights would (to 0.4)
    assert weighted([(1.0, 1), (0.1, 10), (0.1, 10)]) == pytest.approx(3 / 21)


def test_the_interval_is_a_seeded_bootstrap_over_sessions() -> None:
    units = [(0.05 * i, 3 + i) for i in range(12)]
    got = estimate(units)
    assert got == estimate(units) and got.sessions == 12
    assert got.low is not None and got.high is not None and got.value is not None
    assert got.low < got.value < got.high
    assert estimate([(0.3, 5)]).to_dict() == {"value": 0.3, "low": 0.3, "high": 0.3,
                                              "sessions": 1}
    assert estimate([]).value is None


def test_a_source_is_the_name_before_the_double_underscore_else_the_folder() -> None:
    assert source_of("sessions/m-claude__abc.jsonl") == "m-claude"
    assert source_of("team-a/4d5611e5.jsonl") == "team-a"
    assert source_of("solo.jsonl") == "logs"


def test_leaving_one_source_out_gives_the_others_error_on_it() -> None:
    big = [reads(10, 1)] * 6  # 0.1 in six sessions, every one alike: a settled source
    small = [reads(10, 3)] * 2  # 0.3 in two sessions: too few to settle anything
    rows = {r.source: r for r in leave_one_out({"big": big, "small": small})
            ["reread_in_view_rate"]}
    assert rows["big"].error == pytest.approx(2.0) and rows["big"].settled
    assert rows["small"].error == pytest.approx(-2 / 3) and not rows["small"].settled
    assert set(leave_one_out({"big": big})["reread_in_view_rate"]) == set()


def test_a_verdict_for_every_habit_even_without_data() -> None:
    assert verdict(estimate([(1.0, 5)]), estimate([(1.29, 5)])) == "within"
    assert verdict(estimate([(1.0, 5)]), estimate([(1.31, 5)])) == "outside"
    assert verdict(estimate([]), estimate([(1.0, 5)])) == "no data"


def test_the_report_has_every_habit_per_session_and_per_source(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for source in ("alpha", "beta"):
        log = Log().user("Go.")
        first, second = log.call("Read", file_path="a.py"), log.call("Grep", pattern="x")
        log.reply("m1", text("Looking."), first, second).results("one", "two")
        log.reply("m2", text("Again."), log.call("Read", file_path="a.py")).results("one")
        log.reply("m3", text("done")).save(tmp_path / f"{source}__s.jsonl")
    assert main(["calibrate", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data["per_session"]) == [h.key for h in HABITS]
    assert data["per_session"]["parallel_mean"]["value"] == 1.5
    assert data["per_session"]["parallel_read"]["value"] == 1.5  # both responses open so
    assert data["per_session"]["parallel_search"]["value"] is None  # no response opens so
    assert data["per_session"]["parallel_opening"]["value"] == 1.5
    assert data["per_session"]["reread_in_view_rate"]["value"] == 0.5
    held = data["leave_one_source_out"]["parallel_mean"]
    assert [(r["source"], r["error"], r["settled"]) for r in held] == [
        ("alpha", 0.0, False), ("beta", 0.0, False)]
    assert main(["calibrate", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    assert "Left out one source at a time" in shown
    assert "parallel_mean: alpha +0%?, beta +0%?\n    no source settles it" in shown
