"""Pitfall-ladder tests: each rung on each stage (see ladder.py)."""

from __future__ import annotations

import pytest

from ctxlab.runner import run
from ctxlab.workbook.pitfall import expect

from .ladder import LADDER, Rung

CASES = [pytest.param(rung, stage, id=f"{rung.id}-stage{stage}",
                      marks=pytest.mark.pitfall(fixed_in=rung.fixed_in, why=rung.why))
         for rung in LADDER for stage in rung.stages()]


@pytest.mark.parametrize(("rung", "stage"), CASES)
def test_rung(rung: Rung, stage: int) -> None:
    result = run(stage, rung.scenario, model=rung.model, layer_options=rung.options(stage))
    expect(rung.holds(result), f"stage {stage} on {rung.scenario}: {rung.why}")
