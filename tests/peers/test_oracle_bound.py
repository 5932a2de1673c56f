"""The oracle is a lower bound on every scenario (issue: a bound, not a method).

On the README's three scenarios ``test_peers`` checks it against every row, peers included.
Here every other scenario: the oracle against every stage and the keep-everything baseline
that finish the task. The agent's reply lengths are drawn from what it sees, so two runs whose
views differ write replies of different lengths; on a task with little to clear that alone can
tip the total. The bound is therefore on what the layer controls: the oracle may exceed a row
by no more than its agent's extra output tokens, re-sent on every later request.
"""

from __future__ import annotations

import pytest

from ctxlab import scenarios, use
from ctxlab.oracle import Oracle
from ctxlab.report.compare import LARGE_WINDOW_MODEL, built_stages
from ctxlab.runner import RunResult, run

HEADLINE = {"long-task", "chat-heavy", "medium-results"}


def _output(result: RunResult) -> int:
    return sum(r.output_tokens for r in result.records)


@pytest.mark.parametrize("scenario", [s for s in scenarios.names() if s not in HEADLINE])
def test_the_oracle_bounds_every_finished_run(scenario: str) -> None:
    use("solutions")
    plan = scenarios.load(scenario)
    # The oracle bounds one context: a plan with a part for a sub-agent runs inline (§11).
    inline = {"enabled": False} if any(step.delegate for step in plan.steps) else None
    oracle = run(None, scenario, layer=Oracle(plan), label="oracle", delegation=inline)
    assert oracle.summary.success, oracle.problems
    others = [run(stage, scenario, delegation=inline) for stage in built_stages()]
    others.append(run(None, scenario, model=LARGE_WINDOW_MODEL, delegation=inline))
    finished = [r for r in others if r.summary.success]
    assert finished
    for other in finished:
        extra = max(0, _output(oracle) - _output(other)) * oracle.summary.turns
        assert oracle.summary.tokens_per_task <= other.summary.tokens_per_task + extra, \
            other.summary.stage
