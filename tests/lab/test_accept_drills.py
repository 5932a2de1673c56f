"""The acceptance drills' own bookkeeping (``ctxlab.report.accept``, §12.8): what counts as a
drill having reached its layer's trigger. Nothing here depends on a learner's exercise."""

from __future__ import annotations

from types import SimpleNamespace

from ctxlab.report.accept import DRILLS, reached


def test_the_offload_drill_reads_the_budget_of_its_runs_window() -> None:
    """On a 32K window §2.4's budget is kept to the window's share (``offload_budgets``,
    32,768 characters): a result of 40,000 is over it there, and under the 200K window's."""
    result = [{"type": "tool_result", "tool_use_id": "t", "content": "x" * 40_000}]
    offload = next(d for d in DRILLS if d.layer == "offload")
    for model, over in (("ctxlab-sim-32k", True), ("claude-haiku-4-5", False)):
        run = SimpleNamespace(original=[{"role": "user", "content": result}],
                              records=[SimpleNamespace(model=model)])
        assert reached(offload, run, {}) is over, model
    assert reached(offload, run, {"per_result": 30_000}) is True
