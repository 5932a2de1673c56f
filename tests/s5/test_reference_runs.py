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


def _decisions(records: list) -> list:
    """Per request: the layers that fired and why, in the words that decide (a batch's
    ``repays`` or the band's upper edge), not the sizes they quote."""
    return [[(e["layer"], e["trigger"].split(";")[0].split(" > ")[-1]) for e in r.compactions]
            for r in records if r.kind == "agent"]


@pytest.mark.reliability
@pytest.mark.parametrize("scenario", ["long-task", "chat-heavy", "medium-results"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sized_from_usage_decides_as_counting_every_time(scenario: str, seed: int,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Stage 5 sized from the last usage takes the decisions the same code takes when it
    counts every request (its error band made endless), on at least 99 % of the turns; it
    counts at most one request in ten; its size is within its stated band of the input the
    API reported on every request; no request is rejected as too long."""
    from s5_pipeline.calibration import Calibration

    from ctxlab.brain.retrieval import switched
    from ctxlab.runner import run

    with switched(False):
        sized = run(5, scenario, seed=seed)
        monkeypatch.setattr(Calibration, "error", lambda self, estimate, fixed: 1 << 40)
        counted = run(5, scenario, seed=seed)
    ours, every = _decisions(sized.records), _decisions(counted.records)
    same = sum(a == b for a, b in zip(ours, every, strict=False)) / max(len(ours), len(every))
    agent = [r for r in sized.records if r.kind == "agent"]
    assert same >= 0.99 and sized.summary.success == counted.summary.success
    assert counted.summary.count_calls >= len(agent) >= 10 * sized.summary.count_calls
    assert all(abs(r.size_error) <= r.layer_size_band for r in agent
               if r.size_error is not None)
    assert not any(r.error for r in agent)
