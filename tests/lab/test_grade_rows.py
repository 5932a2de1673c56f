"""``ctxlab grade``'s ladder rows use the ladder's words and show each cell's evidence."""

from __future__ import annotations

import json

import pytest

from ctxlab.cli import main
from ctxlab.workbook import grade, progress
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


def _stub_message(number: str) -> str:
    """The first line of what exercise ``number``'s generated stub raises."""
    from ctxlab.workbook.manage import fresh

    files, exercises = fresh(stage(int(number.split(".")[0])))
    exercise = next(e for e in exercises if e.number == number)
    line = next(x for x in files[exercise.path].splitlines()
                if "NotImplementedError" in x and f"Exercise {number} " in x)
    return line.split('NotImplementedError("', 1)[1].rsplit('")', 1)[0]


def _test(exercise: str, outcome: str, stub: str | None) -> dict[str, object]:
    return {"nodeid": f"tests/s2/test_x.py::test_{exercise}", "stage": 2, "outcome": outcome,
            "exercise": exercise, "pitfall": None, "not_implemented": stub is not None,
            "message": _stub_message(stub) if stub else "", "evidence": ""}


def test_a_test_stopped_by_another_exercise_names_that_exercise() -> None:
    """2.3 written, one of its tests calls 2.4's stub: grade says what to write next."""
    rows = {r.item.split()[1]: r for r in grade.classify(stage(2), [
        _test("2.3", "passed", None), _test("2.3", "failed", "2.4"),
        _test("2.4", "failed", "2.4")])}
    assert rows["2.3"].status == grade.TODO
    assert rows["2.3"].detail == "needs exercise 2.4 first"
    assert rows["2.4"].detail == "valid.py: still a stub"


def test_failing_before_it_ever_passed_then_regression_after(
        tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A first wrong attempt is FAILING; REGRESSION is for an exercise that passed in an
    earlier grade and broke since; a stage's reset makes it a first attempt again."""
    monkeypatch.setattr(progress, "_state_file", lambda: tmp_path / "passed.json")
    outcome = ["failed"]
    monkeypatch.setattr(grade, "run_tests", lambda s, chain: [_test("2.1", outcome[0], None)])

    def status() -> str:
        assert main(["grade", "2", "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)["exercises"]
        return next(r["status"] for r in rows if r["item"].startswith("exercise 2.1 "))

    assert status() == grade.FAILING
    outcome[0] = "passed"
    assert status() == grade.DONE
    outcome[0] = "failed"
    assert status() == grade.REGRESSION
    progress.forget(["2.1", "2.2"])  # what `ctxlab workbook reset 2` does
    assert status() == grade.FAILING
