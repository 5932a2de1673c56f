"""Identical runs computed once, across processes: the test suite's shared runs (DESIGN §6).

A run of the offline bench is a function of its arguments: the simulated model is seeded and
its clock simulated. So when ``$CTXLAB_RUN_CACHE`` names a folder, ``runner.run`` keeps each
run it computes there and hands the same run, asked for again by another test, another
pytest-xdist worker or a notebook's kernel, back from the folder instead of running it again.
``make test`` sets the folder for one session (``tests/conftest.py``) and deletes it after;
nothing else does, and without the variable every run is computed, as it is inside
``computed()`` (the bench times runs).

Only a run its arguments fully determine is shared: the reference or the workbook as
selected (``ctxlab.use``), the retrieval model on or off (``--rot``), a stage or none, a
scenario, a model, a seed, a turn limit, layer and brain options given as plain data, the
API's own edits (``ServerEdits``), and a layer named ``MODULE:FACTORY`` whose file is one of
those the key digests: every source and fixture file a run can read (the ``ctxlab`` package,
both implementations, ``fixtures/``), so an edit anywhere starts afresh. A run given a
prepared simulator, a layer object, a callback, a kept workspace, an exported log or the live
API is always computed. Two ways of asking for one run share it (``runner.same_run``: the
scenario's own model named or left out, empty options or none).

A shared run is its ``RunResult`` as the first process finished it, but for ``session``
(the API client it talked through), which is None. ``remembered`` shares any other work the
same way under a name of its caller's (the ladder's runs, ``ctxlab.ladder.runs``). Writes go
to a temporary file renamed into place, and a process computing a run holds a lock on it, so
another one asking for the same run waits for it instead of running it twice.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib.util
import inspect
import json
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from .workbook.layout import BY_PACKAGE, impl_root, repo_root
from .workbook.router import FINDER

ENV = "CTXLAB_RUN_CACHE"
PLAIN = frozenset({"stage", "scenario", "model", "seed", "max_turns", "layer_options",
                   "brain_options", "label", "layer", "server",
                   "delegation"})  # may vary between shared runs
DEFAULTS = {"live": False, "resume": False}  # the rest must be these, or None

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
_computing = [0]  # how many ``computed()`` blocks are open


def shared(same: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[F], F]:
    """A decorator: the function's results shared through ``$CTXLAB_RUN_CACHE`` when that is
    set. ``same(arguments)`` writes the arguments one way for every way of asking for the same
    run (a default spelled out or left out), so that those share it too."""

    def decorate(run: F) -> F:
        signature = inspect.signature(run)

        @functools.wraps(run)
        def sharing(*args: Any, **kwargs: Any) -> Any:
            if not os.environ.get(ENV) or _computing[0]:
                return run(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            described = _plain(same(dict(bound.arguments)))
            if described is None:
                return run(*args, **kwargs)
            return remembered(["run", described], lambda: run(*args, **kwargs),
                              lambda result: dataclasses.replace(result, session=None))

        return sharing  # type: ignore[return-value]

    return decorate


def remembered(description: Any, compute: Callable[[], T], kept: Callable[[T], Any]) -> T:
    """``compute()``, or what another process computed for the same ``description`` (plain
    data naming the work) from the same sources; ``kept(value)`` is what is written for the
    others (``RunResult``: without its API client)."""
    folder = os.environ.get(ENV)
    name = _name(description) if folder and not _computing[0] else None
    if name is None:
        return compute()
    path = Path(folder) / f"{name}.pickle"  # type: ignore[arg-type]
    with _locked(path.with_suffix(".lock")):
        found = _load(path)
        if found is not None:
            return found  # type: ignore[no-any-return]
        value = compute()
        _store(path, kept(value))
        return value


@contextlib.contextmanager
def computed() -> Iterator[None]:
    """Within this block every run is computed: a timing must not read a shared run."""
    _computing[0] += 1
    try:
        yield
    finally:
        _computing[0] -= 1


def key(arguments: dict[str, Any]) -> str | None:
    """The run's name in the folder, or None when its arguments do not determine it."""
    described = _plain(arguments)
    return None if described is None else _name(["run", described])


def _plain(arguments: dict[str, Any]) -> list[Any] | None:
    """The arguments as plain data, or None when they do not determine the run."""
    from .server_edits import ServerEdits  # the SDK behind it: imported once a run is asked for

    arguments = dict(arguments)
    if isinstance(arguments.get("server"), ServerEdits):
        arguments["server"] = list(arguments["server"].edits)
    if isinstance(arguments.get("layer"), str) and not ours(arguments["layer"]):
        return None
    for name, value in arguments.items():
        if name not in PLAIN and value != DEFAULTS.get(name):
            return None
    return sorted(arguments.items())


def _name(description: Any) -> str | None:
    """The digest of ``description`` with the sources it runs on; None if not plain data."""
    from .brain.retrieval import enabled  # --rot: the simulated model runs differently

    try:
        described = json.dumps([fingerprint(), sources(), enabled(), description],
                               sort_keys=True)
    except (TypeError, ValueError):  # options that are not plain data
        return None
    return hashlib.sha256(described.encode()).hexdigest()


def sources() -> list[str]:
    """Where each stage package is loaded from now (``ctxlab.use``): two selections that load
    the same packages (the reference, whichever stage is named) run the same."""
    return [FINDER.selection.source(package) for package in sorted(BY_PACKAGE)]


_HASHED: dict[Path, tuple[int, int, bytes]] = {}  # path -> (mtime, size, digest) seen last


def _digest(*roots: Path) -> str:
    """A digest of the files under ``roots``; a file is read again only once it changed, so a
    long-lived process (a notebook's kernel) sees an edit once it is saved."""
    digest = hashlib.sha256(sys.version.encode())
    for root in roots:
        for path in sorted(root.rglob("*")):
            if "__pycache__" in path.parts or ".egg-info" in path.parent.name:
                continue
            try:
                info = path.stat()
            except OSError:  # removed meanwhile
                continue
            if not path.is_file():
                continue
            seen = _HASHED.get(path)
            if seen is None or seen[:2] != (info.st_mtime_ns, info.st_size):
                seen = (info.st_mtime_ns, info.st_size, hashlib.sha256(path.read_bytes()).digest())
                _HASHED[path] = seen
            digest.update(str(path.relative_to(root)).encode() + b"\0" + seen[2])
    return digest.hexdigest()


def _roots() -> list[Path]:
    roots = [Path(__file__).resolve().parent, impl_root("solutions"), impl_root("stages"),
             repo_root() / "fixtures"]
    return sorted({root for root in roots  # a root inside another is hashed with it
                   if not any(root != other and root.is_relative_to(other) for other in roots)})


_LAST: list[Any] = [None, 0.0, ""]  # the roots, when, and their digest


def fingerprint() -> str:
    """A digest of every file a run can read: this package, both implementations, fixtures;
    looked at again when a second has passed (a look costs a hundredth of a second)."""
    roots = _roots()
    if _LAST[0] != roots or time.monotonic() - _LAST[1] > 1.0:
        _LAST[:] = [roots, time.monotonic(), _digest(*roots)]
    return str(_LAST[2])


def ours(spec: str) -> bool:
    """Whether the layer ``MODULE:FACTORY`` is a file the fingerprint covers (a learner's own
    file elsewhere may change between two runs of one session: its runs are computed)."""
    name = spec.rpartition(":")[0]
    try:
        if name.endswith(".py") or "/" in name or "\\" in name:
            origin = Path(name).resolve()
        else:
            found = importlib.util.find_spec(name)
            origin = Path(found.origin).resolve() if found and found.origin else None
    except (ImportError, ValueError):
        return False
    return origin is not None and any(origin.is_relative_to(root) for root in _roots())


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (where ``fcntl`` exists; elsewhere no lock)."""
    try:
        import fcntl
    except ImportError:  # Windows: two processes may compute the same run; both are right
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _load(path: Path) -> Any:
    try:
        with open(path, "rb") as handle:
            return pickle.load(handle)
    except FileNotFoundError:
        return None


def _store(path: Path, result: Any) -> None:
    """Write ``result`` whole or not at all; a result that cannot be pickled is not kept."""
    try:
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return
    handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.replace(temporary, path)
