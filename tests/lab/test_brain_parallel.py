"""The simulated agent calls several tools at once where real agents do (DESIGN §4 "habits"):
only steps that are independent of each other and whose needs it finds now, at the measured
rate, the same on every run of a seed."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_brain_plan import Chat, calls

from ctxlab.brain.parallel import continuation
from ctxlab.kinds import WRITE, kind_of
from ctxlab.scenarios import Call, Scenario, ScenarioError, load

ALWAYS = {"parallel_read": 1e6, "parallel_search": 1e6, "parallel_run": 1e6}
"""A continuation chance of one (to within 1e-6): every eligible step joins the batch."""


def batches(scenario: Scenario, seed: int = 0, **habits: float) -> list[list[Call]]:
    """The calls of each calling response of a whole run with everything visible."""
    chat = Chat(scenario, seed=seed, **habits)
    taken = []
    for _ in range(80):
        made = calls(chat.turn())
        if not made:
            return taken
        taken.append(made)
    raise AssertionError("the run did not end")


def step_of(scenario: Scenario, call: Call) -> int:
    return next(i for i, s in enumerate(scenario.steps) if call in s.calls)


@pytest.mark.parametrize("name", ["long-task", "medium-results", "chat-heavy", "bugfix-small",
                                  "constraint", "chinese-code"])
def test_a_batch_holds_only_independent_steps_whose_needs_are_in_view(name: str) -> None:
    scenario = load(name)
    for batch in batches(scenario, **ALWAYS):
        steps = [scenario.steps[step_of(scenario, c)] for c in batch]
        for i, step in enumerate(steps[1:], 1):
            assert kind_of(step.call.tool) != WRITE, (name, batch)
            assert not set(step.needs) & {f for s in steps[:i] for f in s.yields}, (name, batch)
            assert step is not scenario.steps[-1] and step.tempts is None, (name, batch)
        # the plan is kept in order: a batch is a run of consecutive steps
        indexes = [scenario.index(s.id) for s in steps]
        assert indexes == list(range(indexes[0], indexes[0] + len(indexes))), (name, batch)


def test_several_reads_at_the_start_of_a_task_when_the_rate_allows() -> None:
    scenario = load("long-task")
    plain = batches(scenario, parallel_read=1.0, parallel_search=1.0, parallel_run=1.0)
    assert max(map(len, plain)) == 1
    eager = batches(scenario, **ALWAYS)
    assert max(map(len, eager)) > 2
    # fewer responses for the same plan: every planned call is still made once
    assert sorted(c.key for b in eager for c in b) == sorted(c.key for b in plain for c in b)


def test_the_share_of_extra_calls_follows_the_measured_mean() -> None:
    """A response led by a command holds on average about ``parallel_run`` calls where the
    steps allow (long-task's sixteen ``cat`` of log shards need nothing from each other);
    the draws are keyed on the seed and the step, so a seed repeats its batches."""
    assert continuation(1.0) == 0.0 and continuation(2.0) == 0.5 and continuation(4.0) == 0.75
    scenario = load("long-task")
    assert batches(scenario, seed=3) == batches(scenario, seed=3)
    sizes = [len(b) for seed in range(6) for b in batches(scenario, seed=seed,
                                                         parallel_run=2.0)
             if b[0].tool == "run_command"]
    assert 1.2 < sum(sizes) / len(sizes) < 2.0  # 2.0 unbounded; the plan's ends cut some short


def test_a_step_whose_needs_are_not_in_view_is_not_called_ahead() -> None:
    scenario = load("constraint")
    needing = [s for s in scenario.steps[1:-1] if s.needs]
    assert needing, "the scenario has steps that need earlier facts"
    for batch in batches(scenario, **ALWAYS):
        lead = step_of(scenario, batch[0])
        for call in batch[1:]:
            step = scenario.steps[step_of(scenario, call)]
            # every fact it needs came from a step before the batch's lead
            providers = {f for s in scenario.steps[:lead] for f in s.yields}
            assert set(step.needs) <= providers


def test_scenario_settings_are_checked(tmp_path: Path) -> None:

    text = load("bugfix-small").path.read_text(encoding="utf-8")
    (tmp_path / "bugfix-small.toml").write_text(text + "\n[behaviour]\nparallel_read = 0.5\n")
    with pytest.raises(ScenarioError, match="at least 1"):
        load(tmp_path / "bugfix-small.toml")
