"""Which code a test really is: its function's file, first line and compiled body.

The grader collects the instructor's tests itself (``ctxlab.room.collect``) and the run's
``sentinel`` reports, for each test it is about to call, the same print of the object pytest
calls. A test wrapped at import (``functools.wraps`` keeps its name and node id), a function
whose ``__code__`` was swapped, or an item whose ``obj`` was replaced prints differently.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from types import CodeType


def code_print(obj: object, roots: Sequence[Path]) -> str:
    """``file:line:hash`` of what pytest calls, the file relative to the first root holding it."""
    function = getattr(obj, "__func__", obj)
    code = getattr(function, "__code__", None)
    if not isinstance(code, CodeType):
        return f"not a function ({type(obj).__name__})"
    where = code.co_filename
    for root in roots:
        prefix = str(root).rstrip("/") + "/"
        if where.startswith(prefix):
            where = where[len(prefix):]
            break
    return f"{where}:{code.co_firstlineno}:{hashlib.sha256(_body(code)).hexdigest()[:16]}"


def _body(code: CodeType) -> bytes:
    """The compiled body, constants and names; nested code the same way (no file paths)."""
    parts = [code.co_code, repr((code.co_names, code.co_varnames, code.co_freevars)).encode()]
    for const in code.co_consts:
        if isinstance(const, CodeType):
            parts.append(_body(const))
        elif isinstance(const, frozenset):  # its order follows the hash seed
            parts.append(repr(sorted(map(repr, const))).encode())
        else:
            parts.append(repr(const).encode())
    return b"\0".join(parts)
