"""Whether a graded run's pytest was tampered with, seen by a plugin loaded before any of the
participant's code (``ctxlab room``, workshop §grading).

``Sentinel`` is made by ``ctxlab.room.worker`` before pytest reads its arguments: it records
the identity of every function and class attribute of pytest's own modules, pluggy and the
workbook's plugin, and the content of every ``conftest.py`` of the instructor's tests. After
each test and at the end of the session it compares: a patched internal (``Function.runtest``,
``TestReport``, ``pytest.skip``, ``CallInfo.from_call``…), a plugin registered from anywhere
else (a ``conftest.py`` written later, a module named by ``pytest_plugins``, an object
registered by hand), or a hook implementation that is not its plugin's own function is a
finding. It writes the findings once, in the ``end`` line of the run's log; the grader reads
the log in another process and adds what only it can see (``ctxlab.room.verdict``).

A guard against the known ways to fake a result, not a security boundary: code that runs in
this process can, with enough effort, reach the sentinel itself.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

WATCHED = ("_pytest", "pytest", "pluggy", "ctxlab.workbook.pytest_plugin",
           "ctxlab.workbook.pitfall", "ctxlab.workbook.router", "ctxlab.room.sentinel")
"""Modules (and their submodules) whose functions and classes must stay as they were."""
ALSO = {"sys": ("exit",), "os": ("_exit", "write", "open"), "json": ("dumps", "dump")}
"""Single attributes of other modules that the reporting path relies on."""
CHANGES = {"_reprcompare", "_assertion_pass", "_config",
           "_pytest_diamond_inheritance_warning_shown"}
"""Attributes pytest itself sets or adds during a session (assertion rewriting, node classes)."""


def _watched(name: str) -> bool:
    return any(name == w or name.startswith(w + ".") for w in WATCHED)


def _ident(value: Any) -> tuple[int, int]:
    """An object's identity, and its code's: ``f.__code__ = …`` changes a function in place."""
    return id(value), id(getattr(value, "__code__", None))


def _members(value: Any) -> dict[str, tuple[int, int]]:
    if not inspect.isclass(value):
        return {}
    return {k: _ident(v) for k, v in vars(value).items() if k not in CHANGES}


def snapshot() -> dict[str, dict[str, Any]]:
    """Identity of each watched module's attributes, and of each of its classes' attributes."""
    taken: dict[str, dict[str, Any]] = {}
    for name, module in list(sys.modules.items()):
        if isinstance(module, ModuleType) and _watched(name):
            taken[name] = {k: (_ident(v), _members(v) if getattr(v, "__module__", None) == name
                               else {}) for k, v in vars(module).items() if k not in CHANGES}
    for name, attrs in ALSO.items():
        taken[name] = {a: (_ident(getattr(sys.modules[name], a)), {}) for a in attrs}
    return taken


def _hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Sentinel:
    """The plugin: findings so far, written to the run's log once, at the end."""

    def __init__(self, copy: Path, log: Path) -> None:
        self.taken: dict[str, dict[str, Any]] = {}
        self.log = log
        self.copy = copy
        self.conftests = {str(p): _hash(p) for p in (copy / "tests").rglob("conftest.py")}
        self.findings: list[str] = []
        self.config: pytest.Config | None = None
        self.ran = False

    def _note(self, finding: str) -> None:
        if finding not in self.findings:
            self.findings.append(finding)

    def check_internals(self) -> None:
        for name, attrs in self.taken.items():
            module = sys.modules.get(name)
            for attr, (ident, members) in attrs.items():
                value = getattr(module, attr, None)
                if _ident(value) != ident:
                    self._note(f"{name}.{attr} was replaced")
                    continue
                now = _members(value) if members else {}
                for member in members.keys() | now.keys():
                    if members.get(member) != now.get(member):
                        self._note(f"{name}.{attr}.{member} was "
                                   + ("added" if member not in members else "replaced"))

    def _allowed(self, plugin: object) -> bool:
        if plugin is self:
            return True
        if isinstance(plugin, ModuleType):
            if _watched(plugin.__name__):
                return True
            where = getattr(plugin, "__file__", None)
            return (where is not None and Path(where).name == "conftest.py"
                    and self.conftests.get(where) == _hash(Path(where)))
        kind = plugin if inspect.isclass(plugin) else type(plugin)
        home = sys.modules.get(kind.__module__)
        return (_watched(kind.__module__) and home is not None
                and getattr(home, kind.__qualname__, None) is kind)

    def check_plugins(self) -> None:
        if self.config is None:
            return
        manager = self.config.pluginmanager
        for name, plugin in manager.list_name_plugin():
            if plugin is not None and not self._allowed(plugin):
                self._note(f"a foreign plugin was registered: {_describe(plugin, name, self.copy)}")
        for hook in vars(manager.hook).values():
            for impl in getattr(hook, "get_hookimpls", list)():
                own = getattr(impl.plugin, impl.function.__name__, None)
                own = getattr(own, "__func__", own)
                if not self._allowed(impl.plugin) or own is not getattr(
                        impl.function, "__func__", impl.function):
                    self._note(f"a foreign {hook.name} implementation: "
                               f"{_describe(impl.function, impl.plugin_name, self.copy)}")

    def check(self) -> None:
        self.check_internals()
        self.check_plugins()

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self) -> None:
        """Configured, nothing collected: no participant code has run yet."""
        self.taken = snapshot()

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.outcome != "passed":
            self._write({"event": "collect", "nodeid": report.nodeid, "outcome": report.outcome})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> None:
        if call.excinfo is not None and call.excinfo.errisinstance(SystemExit):
            self._note(f"{item.nodeid.split('::')[-1]} called sys.exit")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.ran = self.ran or report.when == "call"

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logfinish(self) -> None:
        """After each test that ran: a patch made at import and undone at the end of the
        session, or made for one test, is seen too."""
        if self.ran:
            self.check()
        self.ran = False

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, exitstatus: int) -> None:
        self.check()
        self._write({"event": "end", "exitstatus": int(exitstatus),
                     "tampered": self.findings})

    def _write(self, line: dict[str, Any]) -> None:
        with open(self.log, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")


def _describe(thing: object, name: str | None, copy: Path) -> str:
    """A plugin or hook function as ``name (file)``, the file relative to the copy."""
    where = getattr(thing, "__file__", None) or getattr(
        getattr(thing, "__code__", None), "co_filename", None) or type(thing).__module__
    if where.startswith(str(copy) + "/"):
        where = where[len(str(copy)) + 1:]
    name = name or getattr(thing, "__name__", "?")
    return where if name.endswith(where) else f"{name} ({where})"
