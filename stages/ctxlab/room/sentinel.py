"""Whether a graded run's pytest was tampered with, seen by a plugin loaded before any of the
participant's code (``ctxlab room``, docs/workshop.md).

``Sentinel`` is made by ``ctxlab.room.worker`` before pytest reads its arguments. When the
session starts — configured, nothing collected, no participant code run — it records the
identity of every function and class attribute of the reporting path (pytest, pluggy, json,
the workbook's plugin, this package; ``os.write``, ``builtins.open``…) and of every function and
class of every module already loaded. After each test it compares the reporting path, at the
end everything: a patched internal (``Function.runtest``, ``TestReport``, ``json``'s encoder,
``CallInfo.from_call``, a ``__code__`` swapped in place…), a plugin registered from anywhere
else (a ``conftest.py`` written later, a module named by ``pytest_plugins``, an object
registered by hand), or a hook implementation that is not its plugin's own function is a
finding. Before each test is called it prints the test's code (``testcode``), and after it
says it checked (``checked``, with that print), so the grader can tell a test wrapped at
import and a sentinel that was silenced.

Each finding goes to the grader's pipe the moment it is made, not only at the end: a finding
blanked later still reached the grader. A guard against the known ways to fake a result by
mechanism, not a boundary: code in this process can, with enough effort, reach the sentinel
itself; the grader's own checks (``ctxlab.room.verdict``) see what is left out.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from types import BuiltinFunctionType, FunctionType, ModuleType
from typing import Any

import pytest

from .testcode import code_print

WATCHED = ("_pytest", "pytest", "pluggy", "json", "_json", "ctxlab.workbook.pytest_plugin",
           "ctxlab.workbook.pitfall", "ctxlab.workbook.router", "ctxlab.room")
"""The reporting path: modules (and submodules) whose every attribute must stay as it was."""
ALSO = {"sys": ("exit",), "os": ("_exit", "write", "open", "fdopen", "dup2", "close"),
        "builtins": ("open", "print", "__import__", "compile", "exec", "setattr")}
"""Single attributes of other modules that the reporting path relies on."""
STATEFUL = ("ctxlab.workbook.router",)
"""Modules whose objects hold the run's state (the import router's selection, which the tests
switch): compared by identity only."""
CODE = (FunctionType, BuiltinFunctionType, type)
"""What is compared in every other module loaded before the participant's code."""
CHANGES = {"_reprcompare", "_assertion_pass", "_config",
           "_pytest_diamond_inheritance_warning_shown", "_showwarnmsg_impl"}
"""Attributes pytest itself sets or adds during a session (assertion rewriting, node classes,
the warnings it catches)."""


def watched(name: str) -> bool:
    return any(name == w or name.startswith(w + ".") for w in WATCHED)


def _ident(value: Any) -> tuple[int, int]:
    """An object's identity, and its code's: ``f.__code__ = …`` changes a function in place."""
    return id(value), id(getattr(value, "__code__", None))


def _members(value: Any) -> dict[str, tuple[int, int]]:
    """A class's attributes, or the instance attributes of a watched module's object (a
    replaced ``json._default_encoder.default`` is an instance attribute) unless that object
    holds state the tests switch (``STATEFUL``)."""
    kind = type(value).__module__
    if inspect.isclass(value) or (not isinstance(value, ModuleType | FunctionType)
                                  and watched(kind) and kind not in STATEFUL):
        return {k: _ident(v) for k, v in getattr(value, "__dict__", {}).items()
                if k not in CHANGES}
    return {}


def _code_members(value: Any) -> dict[str, tuple[int, int]]:
    """A class's functions and nested classes (its data may change as it is used)."""
    return {k: _ident(v) for k, v in vars(value).items()
            if isinstance(v, CODE) and k not in CHANGES} if inspect.isclass(value) else {}


def _own(value: Any, name: str) -> bool:
    return getattr(value, "__module__", None) == name or (
        not inspect.isclass(value) and watched(type(value).__module__))


def snapshot() -> dict[str, dict[str, Any]]:
    """Identity of each attribute of the reporting path's modules, and of their classes' and
    objects' attributes."""
    taken: dict[str, dict[str, Any]] = {}
    for name, module in list(sys.modules.items()):
        if isinstance(module, ModuleType) and watched(name):
            taken[name] = {k: (_ident(v), _members(v) if _own(v, name) else {})
                           for k, v in vars(module).items() if k not in CHANGES}
    for name, attrs in ALSO.items():
        taken[name] = {a: (_ident(getattr(sys.modules[name], a)), {}) for a in attrs}
    return taken


def everything() -> dict[str, dict[str, Any]]:
    """Identity of each function and class of every other module loaded, and of their
    classes' functions."""
    return {name: {k: (_ident(v), _code_members(v) if getattr(v, "__module__", None) == name
                       else {}) for k, v in list(vars(module).items())
                   if isinstance(v, CODE) and k not in CHANGES}
            for name, module in list(sys.modules.items())
            if isinstance(module, ModuleType) and not watched(name)}


def _hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Sentinel:
    """The plugin: each finding is reported at once (``report``), and all of them again in
    the ``end`` line."""

    def __init__(self, root: Path, copy: Path, report: Callable[[dict[str, Any]], None]) -> None:
        self.taken: dict[str, dict[str, Any]] = {}  # the reporting path, checked per test
        self.everything: dict[str, dict[str, Any]] = {}  # checked at the end
        self.report = report
        self.roots = (root, copy)
        self.conftests = {str(p): _hash(p) for p in (root / "tests").rglob("conftest.py")}
        self.findings: list[str] = []
        self.config: pytest.Config | None = None
        self.ran = False
        self.code: dict[str, str] = {}

    def _note(self, finding: str) -> None:
        if finding not in self.findings:
            self.findings.append(finding)
            self.report({"event": "tampered", "finding": finding})

    def check_internals(self, taken: dict[str, dict[str, Any]],
                        members: Callable[[Any], dict[str, Any]] = _members) -> None:
        for name, attrs in taken.items():
            module = sys.modules.get(name)
            for attr, (ident, were) in attrs.items():
                value = getattr(module, attr, None)
                if _ident(value) != ident:
                    self._note(f"{name}.{attr} was replaced")
                    continue
                now = members(value) if were else {}
                for member in were.keys() | now.keys():
                    if were.get(member) != now.get(member):
                        self._note(f"{name}.{attr}.{member} was "
                                   + ("added" if member not in were else "replaced"))

    def _allowed(self, plugin: object) -> bool:
        if plugin is self:
            return True
        if isinstance(plugin, ModuleType):
            if watched(plugin.__name__):
                return True
            where = getattr(plugin, "__file__", None)
            return (where is not None and Path(where).name == "conftest.py"
                    and self.conftests.get(where) == _hash(Path(where)))
        kind = plugin if inspect.isclass(plugin) else type(plugin)
        home = sys.modules.get(kind.__module__)
        return (watched(kind.__module__) and home is not None
                and getattr(home, kind.__qualname__, None) is kind)

    def check_plugins(self) -> None:
        if self.config is None:
            return
        manager = self.config.pluginmanager
        for name, plugin in manager.list_name_plugin():
            if plugin is not None and not self._allowed(plugin):
                self._note("a foreign plugin was registered: "
                           + _describe(plugin, name, self.roots))
        for hook in vars(manager.hook).values():
            for impl in getattr(hook, "get_hookimpls", list)():
                own = getattr(impl.plugin, impl.function.__name__, None)
                own = getattr(own, "__func__", own)
                if not self._allowed(impl.plugin) or own is not getattr(
                        impl.function, "__func__", impl.function):
                    self._note(f"a foreign {hook.name} implementation: "
                               f"{_describe(impl.function, impl.plugin_name, self.roots)}")

    def check(self) -> None:
        self.check_internals(self.taken)
        self.check_plugins()

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self) -> None:
        """Configured, nothing collected: no participant code has run yet."""
        self.taken = snapshot()
        self.everything = everything()

    @pytest.hookimpl(tryfirst=True)
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.outcome != "passed":
            self.report({"event": "collect", "nodeid": report.nodeid, "outcome": report.outcome})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> None:
        """What pytest is about to call, as the grader will compare it with its own."""
        self.code[item.nodeid] = code_print(getattr(item, "obj", None), self.roots)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[Any]) -> None:
        if call.excinfo is not None and call.excinfo.errisinstance(SystemExit):
            self._note(f"{item.nodeid.split('::')[-1]} called sys.exit")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.ran = self.ran or report.when == "call"

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        """After each test: a patch made at import and undone at the end of the session, or
        made for one test, is seen too; then the grader is told this test was checked."""
        if self.ran:
            self.check()
        self.ran = False
        self.report({"event": "checked", "nodeid": nodeid, "code": self.code.pop(nodeid, None)})

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, exitstatus: int) -> None:
        self.check()
        self.check_internals(self.everything, _code_members)
        self.report({"event": "end", "exitstatus": int(exitstatus), "tampered": self.findings})


def _describe(thing: object, name: str | None, roots: tuple[Path, ...]) -> str:
    """A plugin or hook function as ``name (file)``, the file relative to the copies."""
    where = getattr(thing, "__file__", None) or getattr(
        getattr(thing, "__code__", None), "co_filename", None) or type(thing).__module__
    for root in roots:
        if where.startswith(str(root) + "/"):
            where = where[len(str(root)) + 1:]
    name = name or getattr(thing, "__name__", "?")
    return where if name.endswith(where) else f"{name} ({where})"
