"""The room's tamper checks without a room: the sentinel in this very process, and the
grader's verdict on hand-made logs (``ctxlab.room.sentinel``, ``ctxlab.room.verdict``)."""

from __future__ import annotations

import types
from pathlib import Path

import _pytest.python
import _pytest.reports
import pytest

from ctxlab.room.run import OK, TIMEOUT, Run
from ctxlab.room.sentinel import Sentinel
from ctxlab.room.verdict import findings

KINDS = {"t.py::a": "run", "t.py::b": "run", "t.py::c": "xfail", "t.py::d": "skip"}
KNOWN = {n: {"kind": k, "code": f"t.py:{i}:abc"} for i, (n, k) in enumerate(KINDS.items())}
HONEST = {"t.py::a": "passed", "t.py::b": "failed", "t.py::c": "xfailed", "t.py::d": "skipped"}
END = {"event": "end", "exitstatus": 1, "tampered": []}


def _records(outcomes: dict[str, str]) -> list[dict[str, str]]:
    return [{"nodeid": n, "outcome": o} for n, o in outcomes.items()]


def findings_of(events: list[dict], records: list[dict[str, str]], exit_code: int | None,
                timed_out: bool, **changed: object) -> list[str]:
    """The verdict on a run whose pipe carried these lines, each reported test checked by the
    sentinel with the instructor's code (unless ``changed``)."""
    run = Run(records, status=TIMEOUT if timed_out else OK, events=events, exit_code=exit_code,
              checked={r["nodeid"]: KNOWN.get(r["nodeid"], {}).get("code") for r in records})
    for name, value in changed.items():
        setattr(run, name, value)
    return findings(run, KNOWN)


def _sentinel(tmp_path: Path, config: pytest.Config) -> Sentinel:
    """A sentinel started now, in this session (whose own plugins it does not know: what it
    finds at once is left out of what each test looks at)."""
    (tmp_path / "tests").mkdir()
    sentinel = Sentinel(tmp_path, tmp_path, lambda line: None)
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
    assert findings_of([END], _records(HONEST), 1, False) == []


@pytest.mark.parametrize(("change", "found"), [
    ({"t.py::a": "skipped"}, "1 test (a) skipped or xfailed at run time"),
    ({"t.py::b": "xfailed"}, "1 test (b) skipped or xfailed at run time"),
    ({"t.py::c": "passed"}, "1 test (c) ended otherwise than marked"),
    ({"t.py::d": "passed"}, "1 test (d) ended otherwise than marked"),
    ({"t.py::e": "passed"}, "1 test (e) reported that the tests do not hold"),
])
def test_an_outcome_that_does_not_fit_the_collection_is_found(
        change: dict[str, str], found: str) -> None:
    assert findings_of([END], _records({**HONEST, **change}), 1, False) == [found]


def test_a_test_never_reported_is_found_unless_collection_failed() -> None:
    partial = _records({"t.py::a": "passed"})
    assert findings_of([END], partial, 0, False) == ["3 tests (b, c, d) never reported"]
    broken = {"event": "collect", "nodeid": "t.py", "outcome": "failed"}  # an import error
    assert findings_of([broken, END], partial, 2, False) == []
    skipped = {"event": "collect", "nodeid": "t.py", "outcome": "skipped"}
    assert findings_of([skipped, END], [], 5, False) == [
        "t.py was skipped at import", "4 tests (a, b, c, …) never reported"]


def test_an_exit_before_the_session_ends_is_found_unless_it_is_a_crash() -> None:
    for code in (0, 1, 5):  # what a finished pytest exits with
        assert findings_of([], [], code, False) == [
            f"the test process exited with code {code} before pytest finished its session"]
    assert findings_of([], [], 3, False) == []  # a crash: graded as one
    assert findings_of([], [], None, True) == []  # a time-out: graded as one
    assert findings_of([{**END, "tampered": ["x was replaced"]}], _records(HONEST), 1,
                       False) == ["x was replaced"]


def test_what_only_the_grader_can_compare_is_found() -> None:
    honest = _records(HONEST)
    wrapped = {**{r["nodeid"]: KNOWN[r["nodeid"]]["code"] for r in honest},
               "t.py::a": "s1_loop/cheat.py:3:def"}  # the called code is the submission's
    assert findings_of([END], honest, 1, False, checked=wrapped) == [
        "1 test (a) passed running other code than the instructor's test "
        "(s1_loop/cheat.py:3:def)"]
    silenced = {"t.py::a": KNOWN["t.py::a"]["code"]}  # the sentinel stopped after one test
    assert findings_of([END], honest, 1, False, checked=silenced) == [
        "3 tests (b, c, d) ended without the sentinel's check"]
    assert findings_of([END], honest, 1, False, odd=["1 line after the session ended"],
                       reported=["json.dumps was replaced"]) == [
        "the pipe to the grader carried 1 line after the session ended",
        "json.dumps was replaced"]  # reported as found, though the end line says nothing


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


def test_the_sentinel_sees_the_reporting_path_patched(
        tmp_path: Path, pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """json's encoder (its function, its default object's attribute), ``open`` wrapped: the
    lines the grader reads are made with them."""
    import builtins
    import json
    import json.encoder

    sentinel = _sentinel(tmp_path, pytestconfig)
    monkeypatch.setattr(json.encoder.JSONEncoder, "encode", lambda self, o: "{}")
    monkeypatch.setattr(json._default_encoder, "default", lambda o: None, raising=False)
    monkeypatch.setattr(builtins, "open", lambda *a, **k: None)
    assert sorted(_new(sentinel)) == ["builtins.open was replaced",
                                      "json._default_encoder.default was added",
                                      "json.encoder.JSONEncoder.encode was replaced"]


def test_at_the_end_every_module_loaded_before_the_tests_is_compared(
        tmp_path: Path, pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch) -> None:
    import textwrap

    reports: list[dict] = []
    (tmp_path / "tests").mkdir()
    sentinel = Sentinel(tmp_path, tmp_path, reports.append)
    sentinel.pytest_sessionstart()
    monkeypatch.setattr(textwrap, "dedent", lambda text: text)  # not on the reporting path
    sentinel.check_internals(sentinel.taken)
    assert sentinel.findings == []
    sentinel.pytest_configure(pytestconfig)
    sentinel.pytest_sessionfinish(1)
    assert "textwrap.dedent was replaced" in sentinel.findings
    assert {"event": "tampered", "finding": "textwrap.dedent was replaced"} in reports
    assert reports[-1]["event"] == "end"
