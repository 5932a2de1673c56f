"""``ctxlab grade``'s ladder rows use the ladder's words and show each cell's evidence."""

from __future__ import annotations

from ctxlab.workbook import grade
from ctxlab.workbook.layout import stage


def _record(outcome: str, evidence: str = "", message: str = "") -> dict[str, object]:
    return {"nodeid": "tests/ladder/test_ladder.py::test_cell[thrash[2]]", "stage": 2,
            "outcome": outcome, "exercise": None, "not_implemented": False,
            "pitfall": {"fixed_in": 3, "why": "§12.2 thrash"}, "message": message,
            "evidence": evidence}


def test_ladder_rows_carry_their_evidence() -> None:
    rows = grade.classify(stage(2), [
        _record("xfailed", "duplicate-call rate 17 %"),
        _record("passed", "duplicate-call rate 2 %"),
        _record("xpassed", "duplicate-call rate 0 %"),
        _record("failed", message="AssertionError: thrash on 2: no removal")])
    ladder = [r for r in rows if r.item.startswith("pitfall")]
    assert [r.status for r in ladder] == [grade.PITFALL, grade.HOLDS, grade.BROKEN, grade.BROKEN]
    assert ladder[0].item == "pitfall thrash[2] — §12.2 thrash"
    assert "17 %" in ladder[0].detail and "fixed in stage 3" in ladder[0].detail
    assert "expected pitfall, but it holds" in ladder[2].detail
    assert "no removal" in ladder[3].detail
