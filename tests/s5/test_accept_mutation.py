"""Acceptance must fail for a dead layer, name it, and say which kind of dead (§12.8, §7.6)."""

from __future__ import annotations

import pytest

from ctxlab.report.accept import FIRES, NO_CHANCE, WIRED_WRONG, accept

pytestmark = pytest.mark.exercise("5.5")


@pytest.mark.checklist("B.33", partly="a dead layer fails acceptance (drill)")
def test_a_layer_reached_that_does_nothing_is_wired_wrong(tmp_path) -> None:
    report = accept(tmp_path, options={"keep_results": 10_000}, layers=["microcompact"])
    assert report["passed"] is False and report["dead"] == ["microcompact"]
    (row,) = report["layers"]
    assert row["verdict"] == WIRED_WRONG and row["reached"] and row["triggers"] == 0


def test_a_layer_whose_trigger_never_comes_had_no_chance(tmp_path) -> None:
    report = accept(tmp_path, options={"per_result": 10**9}, layers=["offload"])
    assert report["dead"] == ["offload"]
    assert report["layers"][0]["verdict"] == NO_CHANCE and not report["layers"][0]["reached"]


def test_the_complete_system_passes_the_same_drill(tmp_path) -> None:
    report = accept(tmp_path, layers=["microcompact", "blocking"])
    assert report["passed"] and [r["verdict"] for r in report["layers"]] == [FIRES, FIRES]

