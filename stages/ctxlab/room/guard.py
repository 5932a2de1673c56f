"""Writes outside a participant's copy, seen from inside the grading process.

``install(copy, report)`` adds an audit hook (PEP 578) to the process that runs the tests: every
open for writing, remove, rename, mkdir, rmdir, link, truncate, chmod, utime and rmtree whose
path resolves outside ``copy`` (``/dev`` aside) is reported as ``{"event": "outside", "path":
…}`` (to the grader's pipe). The hook stops nothing: in the jail such a write fails on its own
(nothing outside the copy is writable), unjailed it happens, and either way ``ctxlab room``
says the code tried. Not a boundary: another process, or a call through ``ctypes``, is not
seen.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

EVENTS = {"open": (0,), "os.remove": (0,), "os.rename": (0, 1), "os.mkdir": (0,),
          "os.rmdir": (0,), "os.symlink": (1,), "os.link": (1,), "os.truncate": (0,),
          "os.chmod": (0,), "os.utime": (0,), "shutil.rmtree": (0,)}
"""Audit events that change the file system, and which of their arguments are the paths."""
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
ALLOWED = ("/dev/",)
LIMIT = 50  # distinct paths logged per process


def install(copy: Path, report: Callable[[dict[str, Any]], None]) -> None:
    """Watch this process's writes; those outside ``copy`` are reported."""
    root = os.path.realpath(copy) + os.sep
    seen: set[str] = set()
    busy = [False]

    def hook(event: str, args: tuple[object, ...]) -> None:
        where = EVENTS.get(event)
        if where is None or busy[0] or len(seen) >= LIMIT:
            return
        if event == "open" and not (isinstance(args[2], int) and args[2] & WRITE_FLAGS):
            return
        for index in where:
            path = args[index] if index < len(args) else None
            if isinstance(path, bytes):
                path = os.fsdecode(path)
            if not isinstance(path, str | os.PathLike):
                continue
            busy[0] = True
            try:
                real = os.path.realpath(os.fspath(path))
                if real.startswith(root) or real.startswith(ALLOWED) or real in seen:
                    continue
                seen.add(real)
                report({"event": "outside", "call": event, "path": real})
            except (OSError, ValueError, TypeError):
                pass
            finally:
                busy[0] = False

    sys.addaudithook(hook)
