"""Code reaching into the grader's objects, seen by an audit hook (PEP 578) of the run.

``install(report, watched)`` adds, before any of the participant's code runs, a hook that a
Python program cannot remove: it reports at once, to the grader's pipe, a class of the
reporting path (``watched``: pytest, pluggy, json, the workbook's plugin, ``ctxlab.room``)
given or losing an attribute, any function's ``__code__`` swapped for code written elsewhere,
and a walk over the heap's objects (``gc.get_objects``, ``gc.get_referrers``,
``gc.get_referents``: how code finds the ``Sentinel`` or pytest's ``Config`` without being
given them). It does not stop them — the
jail is the boundary — and it does not depend on the ``Sentinel``, so silencing the one does
not silence the other. Module attributes set by assignment raise no audit event: those are
the ``Sentinel``'s to compare.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import CodeType, FunctionType
from typing import Any

HEAP = ("gc.get_objects", "gc.get_referrers", "gc.get_referents")
SETS = ("object.__setattr__", "object.__delattr__")
DEFAULTS = ("__defaults__", "__kwdefaults__")


def install(report: Callable[[dict[str, Any]], None], watched: Callable[[str], bool]) -> None:
    said: set[str] = set()

    def tell(finding: str) -> None:
        if finding not in said:
            said.add(finding)
            report({"event": "tampered", "finding": finding})

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in HEAP:
            tell(f"the tests' process walked the heap ({event})")
        elif event in SETS and len(args) >= 2:
            target, name = args[0], args[1]
            if not isinstance(target, FunctionType):
                return
            if name == "__code__" and \
                    _place(target.__code__) != _place(args[2] if len(args) > 2 else None):
                tell(f"{target.__module__}.{target.__qualname__}.__code__ was swapped")
            elif name in DEFAULTS and watched(str(target.__module__)):
                tell(f"{target.__module__}.{target.__qualname__}.{name} was changed")

    sys.addaudithook(hook)


def _place(code: Any) -> tuple[str, int, str] | None:
    """Where code was written: ``types.coroutine`` gives a function its own code again with
    other flags, which is not a swap."""
    if not isinstance(code, CodeType):
        return None
    return code.co_filename, code.co_firstlineno, code.co_name
