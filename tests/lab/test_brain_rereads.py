"""The in-view re-read habit (DESIGN §4 "habits"): owed per planned read at the pace that
shows the measured per-session rate, spread evenly, never right after the read it checks."""

from __future__ import annotations

from itertools import pairwise

import pytest
from test_brain_parallel import batches

from ctxlab.brain import rereads
from ctxlab.brain.rereads import due, owed, per_read, shown
from ctxlab.brain.visible import Visible
from ctxlab.scenarios import Call, Scenario, load


@pytest.mark.parametrize("reads", [1, 2, 3, 7, 40, 121])
def test_the_pace_shows_the_rate_in_a_session_of_any_length(reads: int) -> None:
    pace = per_read(0.14, reads)
    assert shown(pace * reads, reads) == pytest.approx(0.14, abs=1e-9)
    # a session of one read must take its re-read twice as often as the rate says (1 of 2)
    assert per_read(0.14, 1) == pytest.approx(0.28)
    assert per_read(0.0, reads) == 0.0


def test_a_session_owes_its_share_to_within_one_and_seeds_spread_it() -> None:
    scenario = load("chat-heavy")
    planned = sum(s.call.tool == "read_file" for s in scenario.steps)
    target = per_read(0.14, planned) * planned
    totals = [owed(scenario, len(scenario.steps), 0.14, seed) for seed in range(20)]
    assert all(abs(total - target) < 1 for total in totals)
    assert abs(sum(totals) / 20 - target) < 0.1


def test_a_reread_comes_after_another_step_and_counts_what_the_request_shows() -> None:
    scenario = load("long-task")  # its one planned read is step 1, read-alerts
    owing = [seed for seed in range(12) if owed(scenario, len(scenario.steps), 0.3, seed)]
    assert 0 < len(owing) < 12
    for seed in range(12):
        made = [c for b in batches(scenario, seed=seed, reread_in_view_rate=0.3) for c in b]
        reads = [i for i, c in enumerate(made) if c.tool == "read_file"]
        assert len(reads) == (2 if seed in owing else 1), seed
        assert all(later - first > 1 for first, later in pairwise(reads)), seed
    # a re-read the request already shows (here: a fetch again) is one of those owed
    seen = scan_of(scenario, [Call("read_file", {"path": "alerts.py"})] * 2)
    assert rereads.made(seen) == 1
    assert not any(due(scenario, step, 0.3, seed, seen)
                   for seed in range(12) for step in scenario.steps)


def scan_of(scenario: Scenario, calls: list[Call]) -> Visible:
    return Visible(calls=[(f"toolu_{i}", c) for i, c in enumerate(calls)],
                   results={f"toolu_{i}": ("", False) for i in range(len(calls))})
