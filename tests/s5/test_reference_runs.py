"""The reference run set (issue 49): stage 5 sizing its requests from the last usage does
what it did when it counted every request past the band's lower edge.

``fixtures/reference/runs.toml`` names the runs (scenarios × stages × seeds × rot) and the
tolerance; ``baseline.json`` holds each run's figures at the baseline. The whole set is a few
minutes of CPU: it runs under ``make reliability``.
"""

from __future__ import annotations

import json

import pytest

from ctxlab.bench.reference import FOLDER, key, measure_all, moved, reference_set


def test_the_baseline_holds_every_run_of_the_set() -> None:
    runs, tolerance = reference_set()
    baseline = json.loads((FOLDER / "baseline.json").read_text(encoding="utf-8"))
    assert sorted(map(key, runs)) == sorted(baseline) and 0 < tolerance <= 0.01
    assert all({"success", "tokens", "requests"} <= set(row) for row in baseline.values())


def test_moved_names_a_failure_and_a_token_change_past_the_tolerance() -> None:
    was = {"a": {"success": True, "tokens": 1_000}, "b": {"success": True, "tokens": 1_000},
           "c": {"success": True, "tokens": 1_000}}
    now = {"a": {"success": False, "tokens": 1_000}, "b": {"success": True, "tokens": 1_011},
           "c": {"success": True, "tokens": 1_009}}
    assert [line.split(":")[0] for line in moved(now, was, 0.01)] == ["a", "b"]


@pytest.mark.reliability
def test_every_run_of_the_set_is_as_at_its_baseline() -> None:
    """As successful as at the baseline and within the tolerance of its tokens; on every
    run stage 5 sized from usage counts at most one request in ten in all."""
    runs, tolerance = reference_set()
    baseline = json.loads((FOLDER / "baseline.json").read_text(encoding="utf-8"))
    now = measure_all(runs, jobs=2)
    assert moved(now, baseline, tolerance) == []
    requests = sum(row["requests"] for row in now.values())
    assert sum(row["count_calls"] for row in now.values()) * 10 <= requests
