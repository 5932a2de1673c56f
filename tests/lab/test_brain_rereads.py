"""The in-view re-read habit (DESIGN §4 "habits"): owed per planned read at the pace that
shows the measured per-session rate, spread evenly, never right after the read it checks."""

from __future__ import annotations

import pytest
from test_brain_parallel import batches

from ctxlab.brain.rereads import due, owed, per_read, shown
from ctxlab.scenarios import load


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


def test_a_step_is_due_only_two_after_a_read_and_runs_take_the_reread() -> None:
    scenario = load("long-task")  # its one planned read is step 1, read-alerts
    seeds = [seed for seed in range(12) if due(scenario, scenario.steps[3], 0.3, seed)]
    assert seeds and not any(due(scenario, s, 0.3, seed) for seed in range(12)
                             for s in scenario.steps if s is not scenario.steps[3])
    for seed in seeds:
        reads = [c for b in batches(scenario, seed=seed, reread_in_view_rate=0.3)
                 for c in b if c.tool == "read_file"]
        assert [c.input["path"] for c in reads] == ["alerts.py", "alerts.py"]
