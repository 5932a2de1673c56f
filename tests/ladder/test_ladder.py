"""The pitfall ladder, cell by cell (``ctxlab.ladder``; DESIGN §2, guide §14).

Each cell's test states what the fixing stage guarantees. Where the table says ``pitfall`` it
is a strict expected failure that only counts when the mechanism is observed
(``PitfallObserved``): if the mechanism stops appearing the cell turns ``holds`` (XPASS) or
``broken`` (a plain failure) and the run fails. Where it says ``holds`` the weakness raises
``PitfallObserved`` and fails the test, and a trigger that never occurred (``broken``) fails
it too. ``n/a`` cells must say why the stage lacks the mechanism; ``not shown`` cells (a
paired test over seeds that showed no difference) must stay so. Any status other than the one
the table pins fails (``ladder.pinned``). Runs are shared between
cells (``ctxlab.ladder.runs``), so the whole ladder costs one run per distinct set-up.
"""

from __future__ import annotations

import pytest

from ctxlab.ladder import HOLDS, LADDER, NA, NOT_SHOWN, PITFALL, Cell, Rung, pinned
from ctxlab.ladder.table import SEEDED
from ctxlab.workbook.pitfall import PitfallObserved, expect


def _case(rung: Rung, key: str) -> pytest.param:
    stage, expected = Cell.parse(key).stage, rung.cells[key]
    marks = [pytest.mark.seeded] if rung.id in SEEDED else []
    if expected not in (NA, NOT_SHOWN):
        marks.append(pytest.mark.pitfall(fixed_in=rung.fixed_in,
                                         why=f"{rung.section} {rung.why}"))
    if expected == PITFALL and stage >= rung.fixed_in:  # a naive variant, or a later stage
        marks.append(pytest.mark.xfail(strict=True, raises=PitfallObserved,  # the table names
                                       reason=f"{key} shows the pitfall: {rung.why}"))
    return pytest.param(rung, key, stage, id=f"{rung.id}[{key}]", marks=marks)


CASES = [_case(rung, key) for rung in LADDER for key in rung.cells]


@pytest.mark.parametrize(("rung", "cell", "stage"), CASES)
def test_cell(rung: Rung, cell: str, stage: int, record_property: pytest.RecordProperty) -> None:
    verdict = pinned(rung, cell)  # the status the table pins, or a plain failure
    record_property("evidence", verdict.evidence)
    record_property("status", verdict.status)
    if verdict.status in (NA, NOT_SHOWN):
        return
    expect(verdict.status == HOLDS, f"{rung.id} on stage {cell}: {verdict.evidence}")
