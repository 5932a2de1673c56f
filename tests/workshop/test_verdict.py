"""The room's tamper checks without a room: the sentinel in this very process, and the
grader's verdict on hand-made logs (``ctxlab.room.sentinel``, ``ctxlab.room.verdict``)."""

from __future__ import annotations

import types
from pathlib import Path

import _pytest.python
import _pytest.reports
import pytest

from ctxlab.room.sentinel import Sentinel
from ctxlab.room.verdict import findings

KINDS = {"t.py::a": "run", "t.py::b": "run", "t.py::c": "xfail", "t.py::d": "skip"}
HONEST = {"t.py::a": "passed", "t.py::b": "failed", "t.py::c": "xfailed", "t.py::d": "skipped"}
END = {"event": "end", "exitstatus": 1, "tampered": []}


def _records(outcomes: dict[str, str]) -> list[dict[str, str]]:
    return [{"nodeid": n, "outcome": o} for n, o in outcomes.items()]


def _sentinel(tmp_path: Path, config: pytest.Config) -> Sentinel:
    """A sentinel started now, in this session (whose own plugins it does not know: what it
    finds at once is left out of what each test looks at)."""
    (tmp_path / "tests").mkdir()
    sentinel = Sentinel(tmp_path, tmp_path / "log.jsonl")
    sentinel.pytest_sessionstart()
    sentinel.pytest_configure(config)
    sentinel.check()
    return sentinel


def _new(sentinel: Sentinel) -> list[str]:
    """What a check finds now that the first did not."""
    before = len(sentinel.findings)
    sentinel.check()
    return sentinel.findings[before:]


def test_an_honest_log_has_no_finding() -> None:
    assert findings([END], _records(HONEST), 1, False, KINDS) == []


@pytest.mark.parametrize(("change", "found"), [
    ({"t.py::a": "skipped"}, "1 test (a) skipped or xfailed at run time"),
    ({"t.py::b": "xfailed"}, "1 test (b) skipped or xfailed at run time"),
    ({"t.py::c": "passed"}, "1 test (c) ended otherwise than marked"),
    ({"t.py::d": "passed"}, "1 test (d) ended otherwise than marked"),
    ({"t.py::e": "passed"}, "1 test (e) reported that the tests do not hold"),
])
def test_an_outcome_that_does_not_fit_the_collection_is_found(
        change: dict[str, str], found: str) -> None:
    assert findings([END], _records({**HONEST, **change}), 1, False, KINDS) == [found]


def test_a_test_never_reported_is_found_unless_collection_failed() -> None:
    partial = _records({"t.py::a": "passed"})
    assert findings([END], partial, 0, False, KINDS) == ["3 tests (b, c, d) never reported"]
    broken = {"event": "collect", "nodeid": "t.py", "outcome": "failed"}  # an import error
    assert findings([broken, END], partial, 2, False, KINDS) == []
    skipped = {"event": "collect", "nodeid": "t.py", "outcome": "skipped"}
    assert findings([skipped, END], [], 5, False, KINDS) == [
        "t.py was skipped at import", "4 tests (a, b, c, …) never reported"]


def test_an_exit_before_the_session_ends_is_found_unless_it_is_a_crash() -> None:
    for code in (0, 1, 5):  # what a finished pytest exits with
        assert findings([], [], code, False, KINDS) == [
            f"the test process exited with code {code} before pytest finished its session"]
    assert findings([], [], 3, False, KINDS) == []  # a crash: graded as one
    assert findings([], [], None, True, KINDS) == []  # a time-out: graded as one
    assert findings([{**END, "tampered": ["x was replaced"]}], _records(HONEST), 1, False,
                    KINDS) == ["x was replaced"]


def test_the_sentinel_sees_a_patched_internal(
        tmp_path: Path, pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch) -> None:
    sentinel = _sentinel(tmp_path, pytestconfig)
    assert _new(sentinel) == []
    monkeypatch.setattr(_pytest.python.Function, "runtest", lambda self: None)
    monkeypatch.setattr(_pytest.reports.TestReport, "passed", property(lambda self: True))
    monkeypatch.setattr(pytest, "skip", lambda *a, **k: None)
    assert sorted(_new(sentinel)) == ["_pytest.python.Function.runtest was replaced",
                                      "_pytest.reports.TestReport.passed was added",
                                      "pytest.skip was replaced"]


def test_the_sentinel_sees_code_replaced_in_place(tmp_path: Path, pytestconfig: pytest.Config,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    sentinel = _sentinel(tmp_path, pytestconfig)
    monkeypatch.setattr(_pytest.python.Function.runtest, "__code__",
                        (lambda self: None).__code__)
    assert _new(sentinel) == ["_pytest.python.Function.runtest was replaced"]


def test_the_sentinel_sees_a_foreign_plugin(tmp_path: Path, pytestconfig: pytest.Config) -> None:
    sentinel = _sentinel(tmp_path, pytestconfig)
    forcer = types.ModuleType("forcer")
    exec("def pytest_runtest_logreport(report):\n    report.outcome = 'passed'\n",
         forcer.__dict__)
    pytestconfig.pluginmanager.register(forcer, "forcer")
    try:
        found = _new(sentinel)
    finally:
        pytestconfig.pluginmanager.unregister(forcer)
    assert found == ["a foreign plugin was registered: forcer (builtins)",
                                 "a foreign pytest_runtest_logreport implementation: "
                                 "forcer (<string>)"]
