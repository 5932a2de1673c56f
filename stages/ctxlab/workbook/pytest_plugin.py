"""The workbook's pytest plugin: ``--impl``, ``--stage``, ``--chain``, exercise and pitfall marks.

- ``--impl solutions|stages`` picks the implementation (default ``solutions``: a clone is green);
  with ``stages`` only the graded tests are collected (``tests/sN/`` and the pitfall ladder).
- ``--stage N`` grades one stage: only its tests and ladder cells are collected; with
  ``--impl stages`` the other stages come from ``solutions/`` unless ``--chain mine``.
- ``@pytest.mark.exercise("2.3")`` ties a test to an exercise (``ctxlab grade`` groups by it).
- ``@pytest.mark.pitfall(fixed_in=3, why="§9.2 ...")`` on a test parametrized by ``stage``:
  below ``fixed_in`` it becomes a strict xfail that only accepts ``PitfallObserved``.
- ``@pytest.mark.checklist("B.12")`` names the appendix B items a test checks
  (``ctxlab.workbook.checklist``; docs/checklist.md is written from these marks).
- ``--ctxlab-report FILE`` writes one JSON record per test for ``ctxlab grade``;
  ``--ctxlab-log-fd N`` writes each record as a JSON line to descriptor N as soon as its test
  ends (and a ``start`` line before it runs): ``ctxlab room``'s pipe, so the grader keeps what
  finished before a hang or crash and the run is given no path to the grader's log.
- ``--exercise N.M`` runs only that exercise's tests (one classroom autograding step each).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from .layout import IMPLS, STAGES
from .pitfall import PitfallObserved
from .router import use

_STAGE_DIR = re.compile(r"(?:^|/)tests/s(\d)(?:/|$)")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ctxlab", "Context Engineering Workbook")
    group.addoption("--impl", choices=IMPLS, default="solutions",
                    help="grade the reference (solutions, default) or your workbook (stages)")
    group.addoption("--stage", type=int, choices=[s.number for s in STAGES], default=None,
                    help="grade one stage; other stages come from solutions/ (see --chain)")
    group.addoption("--chain", choices=("reference", "mine"), default="reference",
                    help="with --stage: take the other stages from solutions (reference) or "
                         "from your workbook (mine)")
    group.addoption("--ctxlab-report", default=None, help="write per-test results as JSON")
    group.addoption("--ctxlab-log-fd", type=int, default=None, metavar="N",
                    help="write per-test results as JSON lines to descriptor N as they end")
    group.addoption("--exercise", default=None, metavar="N.M",
                    help="run only the tests of this exercise")


def pytest_configure(config: pytest.Config) -> None:
    impl, stage, chain = (config.getoption("impl"), config.getoption("stage"),
                          config.getoption("chain"))
    use(impl, stage, chain)
    # Subprocesses (notebook kernels, CLI runs) inherit the same selection.
    os.environ.update(CTXLAB_IMPL=impl, CTXLAB_CHAIN=chain,
                      CTXLAB_STAGE=str(stage) if stage else "")
    config.addinivalue_line("markers", "exercise(number): the exercise a test grades")
    config.addinivalue_line("markers", "pitfall(fixed_in, why): a pitfall-ladder test")
    config.addinivalue_line("markers", "checklist(*items, partly=why): the guide's appendix B "
                                       "items a test checks (docs/checklist.md)")
    config._ctxlab_results = []  # type: ignore[attr-defined]


def stage_of(item: pytest.Item) -> int | None:
    """The stage a graded test is about: its ``tests/sN/`` folder, or, for a pitfall test, its
    ``stage`` parameter. Lab-bench, meta and notebook tests belong to no stage."""
    match = _STAGE_DIR.search(Path(str(item.fspath)).as_posix())
    if match:
        return int(match.group(1))
    params = getattr(item, "callspec", None)
    if params is not None and item.get_closest_marker("pitfall") is not None:
        stage = params.params.get("stage")
        return stage if isinstance(stage, int) else None
    return None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With ``--impl stages`` or ``--stage N``, folders of ``tests/`` that grade nothing of it
    are not even collected (nor their imports): only ``tests/sN`` and the ladder. A folder named
    on the command line is always collected."""
    graded, mine = config.getoption("stage"), config.getoption("impl") == "stages"
    if graded is None and not mine:
        return None
    tests = Path(str(config.rootpath)) / "tests"
    if collection_path.parent != tests or not collection_path.is_dir():
        return None
    named = [Path(arg.split("::", 1)[0]).resolve() for arg in config.args]
    if any(collection_path == n or collection_path in n.parents for n in named
           if n != tests and tests in n.parents):
        return None
    if collection_path.name == "ladder":
        return False
    match = re.fullmatch(r"s(\d)", collection_path.name)
    return not (match and (graded is None or int(match.group(1)) == graded))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    graded = config.getoption("stage")
    mine = config.getoption("impl") == "stages"
    only = config.getoption("exercise")
    if only is not None:
        chosen = [i for i in items if (m := i.get_closest_marker("exercise")) and m.args[0] == only]
        config.hook.pytest_deselected(items=[i for i in items if i not in chosen])
        items[:] = chosen
    if graded is not None:  # other stages' ladder cells, the ladder's own table: not graded
        chosen = [i for i in items if stage_of(i) == graded]
        config.hook.pytest_deselected(items=[i for i in items if i not in chosen])
        items[:] = chosen
    for item in items:
        stage = stage_of(item)
        if mine and stage is None:
            item.add_marker(pytest.mark.skip(
                reason="a lab-bench test, independent of your work: run it without --impl"))
            continue
        mark = item.get_closest_marker("pitfall")
        if mark is None:
            continue
        if stage is None:
            raise pytest.UsageError(f"{item.nodeid}: a pitfall test needs a 'stage' parameter")
        if stage < mark.kwargs["fixed_in"]:
            item.add_marker(pytest.mark.xfail(
                strict=True, raises=PitfallObserved,
                reason=f"pitfall on stage {stage}, fixed in stage {mark.kwargs['fixed_in']}: "
                       f"{mark.kwargs.get('why', '')}"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" and not (report.when == "setup" and report.outcome != "passed"):
        return
    exercise = item.get_closest_marker("exercise")
    pitfall = item.get_closest_marker("pitfall")
    error = call.excinfo.value if call.excinfo is not None else None
    status = "xfailed" if hasattr(report, "wasxfail") and report.skipped else (
        "xpassed" if hasattr(report, "wasxfail") else report.outcome)
    record = {
        "nodeid": item.nodeid, "stage": stage_of(item), "outcome": status,
        "exercise": exercise.args[0] if exercise else None,
        "pitfall": dict(pitfall.kwargs) if pitfall else None,
        "not_implemented": isinstance(error, NotImplementedError),
        "message": str(error).splitlines()[0][:300] if error is not None and str(error) else "",
        "evidence": dict(item.user_properties).get("evidence", ""),  # a ladder cell's figure
    }
    item.config._ctxlab_results.append(record)  # type: ignore[attr-defined]
    _log(item.config, {"event": "result", **record})


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Say which test starts, so a test that never ends can be named (``--ctxlab-log-fd``)."""
    exercise = item.get_closest_marker("exercise")
    _log(item.config, {"event": "start", "nodeid": item.nodeid,
                       "exercise": exercise.args[0] if exercise else None})


def _log(config: pytest.Config, line: dict[str, Any]) -> None:
    fd = config.getoption("ctxlab_log_fd")
    if fd is not None:
        write_line(fd, line)


def write_line(fd: int, line: dict[str, Any]) -> None:
    """One JSON line to ``fd``, whole: a pipe's reader never sees half of it."""
    data = (json.dumps(line) + "\n").encode("utf-8", "backslashreplace")
    while data:
        data = data[os.write(fd, data):]


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("ctxlab_report")
    if path:
        Path(path).write_text(json.dumps(session.config._ctxlab_results, indent=1))  # type: ignore[attr-defined]
