"""Notebook 07's figures over seeds are the runs' (``ctxlab.report.isolation``): the committed
data file equals a fresh measurement of every task, mode and seed."""

from __future__ import annotations

from ctxlab.report import isolation


def test_the_committed_isolation_figures_are_the_runs() -> None:
    committed = isolation.load()
    assert committed["seeds"] == list(isolation.SEEDS) and len(isolation.SEEDS) >= 8
    assert set(committed["tasks"]) == set(isolation.TASKS)
    assert committed == isolation.measure(), (
        "notebooks/data/isolation-seeds.json is stale: python -m ctxlab.report.isolation")
