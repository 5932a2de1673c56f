"""Test-suite root. The workbook plugin (``--impl``, ``--stage``, ``--chain``, exercise and
pitfall marks) is loaded for every run by ``addopts`` in pyproject.toml."""

import atexit
import gc
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from warm import Warm

from ctxlab import runcache

TERMINAL = {"COLUMNS": "80", "LINES": "25", "TTY_COMPATIBLE": "0"}
"""The terminal every test sees, whatever the caller's (``COLUMNS=100 make test``, a wide
window, ``pytest -s`` on a TTY): rich and argparse take the width from ``COLUMNS`` before the
terminal, and ``TTY_COMPATIBLE=0`` tells rich its output is not a terminal. Subprocesses
inherit it (and pytest's own report is 80 columns wide). A test of another width or of a
terminal sets its own (monkeypatch, a pty)."""


atexit.register(gc.freeze)
"""A test process (a pytest-xdist worker, a session ``ctxlab grade`` starts) sets what is alive
aside from the collector at its exit (``gc.freeze``, as ``ctxlab.startup`` does for a command):
the interpreter's teardown then frees it without walking every object once more (0.4–0.8 s
of CPU for a process that collected the suite). It runs after the exit handlers registered
later (``atexit`` calls the last registered first), such as ctxlab's fork server's."""


def pytest_configure(config: pytest.Config) -> None:
    """English for the learner-facing lines (hints, grade's next step), an 80-column
    terminal that is not one (``TERMINAL``), and one folder of
    shared runs for the session (``ctxlab.runcache``), made before the
    pytest-xdist workers start so that they, and the notebooks' kernels, inherit it. A session
    started inside another (``ctxlab grade`` in a test) uses its parent's."""
    config.addinivalue_line("markers", "xdist_group(name): pytest-xdist's (a no-op without it)")
    config.addinivalue_line("markers", "shares_runs(why): the test patches or captures only "
                            "what cannot change a run: its runs may be shared (ctxlab.runcache)")
    os.environ["CTXLAB_LANG"] = "en"  # learner-facing lines in English whatever the locale;
    # tests that read them in Chinese set CTXLAB_LANG=zh themselves (monkeypatch)
    os.environ.update(TERMINAL)
    config.addinivalue_line("markers", "reliability: a heavy check of the lab bench that grades "
                            "nothing a learner writes; `make reliability` runs it, `make test` "
                            "does not (tests/reliability/ is marked whole)")
    config.addinivalue_line("markers", "seeded: a ladder cell judged over seeds "
                            "(ctxlab.ladder.paired); `make reliability` runs it, `make test` "
                            "does not")
    if hasattr(config, "workerinput") or os.environ.get(runcache.ENV):
        return
    folder = tempfile.mkdtemp(prefix="ctxlab-runs-")
    os.environ[runcache.ENV] = folder
    config._ctxlab_runs = folder  # type: ignore[attr-defined]


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = getattr(config, "_ctxlab_runs", None)
    if folder is not None:
        os.environ.pop(runcache.ENV, None)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def _fresh_runs_when_patched(request: pytest.FixtureRequest) -> None:
    """A test that patches code, or watches logs and output, computes its runs itself: a
    shared run was computed without the patch and printed nothing here. Unless it is marked
    ``shares_runs``: what it patches or watches cannot change a run nor anything printed while
    one is computed (a run prints nothing but a resumed run's warnings, and those are never
    shared), only what is done or printed with its result."""
    if request.node.get_closest_marker("shares_runs"):
        return
    if {"monkeypatch", "caplog", "capsys", "capfd", "recwarn"} & set(request.fixturenames):
        request.getfixturevalue("monkeypatch").delenv(runcache.ENV, raising=False)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """For ``make test`` (pytest-xdist, ``--dist loadgroup``): a module's tests run on one
    worker, so what the module computes once (module fixtures, cached runs) is computed once.
    A test that names its own group (each notebook) is scheduled on its own."""
    for item in items:
        if "tests/reliability/" in item.nodeid:
            item.add_marker(pytest.mark.reliability)
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))




_ungrouped: list[str] = []  # a test a worker named without its group


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's, absent without it
def pytest_xdist_node_collection_finished(node: object, ids: list[str]) -> None:
    """Grouping is checked where it shows: a worker names a grouped test ``id@group``.
    Without that suffix the groups are silently ignored (pytest-xdist issue 1386, pytest 9.2)
    and ``make test`` builds each module's fixtures once per worker."""
    config = node.config  # type: ignore[attr-defined]
    if config.getvalue("dist") == "loadgroup" and ids and "@" not in ids[0]:
        _ungrouped[:] = ids[:1]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _ungrouped:
        for line in ("warning: pytest-xdist ignored the xdist_group marks with this pytest",
                     "(pytest-xdist issue 1386): install the pytest pyproject.toml names"):
            terminalreporter.write_line(line, yellow=True)


@pytest.fixture
def needs_jail() -> None:
    """The OS jail (``ctxlab.jail``) must run here: skipped with the probe's reason where it
    cannot, failed instead when ``CTXLAB_REQUIRE_JAIL=1`` (CI), so CI never skips it."""
    from ctxlab import jail

    status = jail.probe()
    if not status.ok:
        (pytest.fail if jail.required() else pytest.skip)(f"no jail here: {status.reason}")


@pytest.fixture(scope="session")
def warm() -> Iterator[Warm | None]:
    """One warm interpreter per test worker (``tests/warm.py``), started when a test first
    asks for it: the notebooks' kernels are forked from it instead of importing the SDK each.
    None where it cannot run (not Linux): they start as before."""
    if not Warm.supported():
        yield None
        return
    server = Warm()
    yield server
    server.close()
