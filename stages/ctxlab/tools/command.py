"""The ``run_command`` tool: one program, no shell, inside the workspace (DESIGN §2, §9).

The program runs in the OS jail when there is one (``confine``: the workspace is its only
writable folder, at the same path, and ``COMMAND_LIMITS`` hold), with the workspace root as
working directory and HOME, a scrubbed environment (nothing from the parent process, so no
``ANTHROPIC_API_KEY``), under ``reaper`` (a child subreaper on Linux): when the program exits,
every process it started is killed, and at the timeout all of them are, even those that moved
to a new session. Output (stdout and stderr together) is read incrementally and only the first
``cap`` bytes are kept, so a command that prints 10 MB costs ``cap`` bytes of memory. Output
containing NUL bytes is reported as binary instead of being dumped.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxlab import jail
from ctxlab.jail.limits import COMMAND_LIMITS, for_timeout
from ctxlab.tools import confine, forkserver
from ctxlab.tools.results import ToolError
from ctxlab.tools.sandbox import check_allowed, split_command

_CHUNK = 65_536
_SAFE_DIRS = ("/usr/local/bin", "/usr/bin", "/bin")
_GRACE = 2.0  # seconds the reaper gets to kill what it holds before its group is SIGKILLed


def safe_env(root: Path) -> dict[str, str]:
    """The complete environment a command gets; nothing is inherited from the parent."""
    dirs = dict.fromkeys([os.path.dirname(sys.executable), *_SAFE_DIRS])  # ordered, unique
    return {
        "PATH": os.pathsep.join(dirs),
        "HOME": str(root),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }


@dataclass(frozen=True)
class Captured:
    """What a finished (or killed) process left: kept output bytes and the rest's size."""

    output: bytes
    dropped: int
    exit_code: int
    timed_out: bool


def run_command(root: Path, command: str, *, timeout: float, cap: int,
                allowed: frozenset[str] | None = None,
                confirm: Callable[[list[str]], bool] | None = None) -> str:
    """Run ``command`` in ``root``; its output plus ``[exit code: N]``, or ``ToolError``.

    With ``allowed`` (live mode), a program outside it runs only when ``confirm(argv)`` agrees.
    """
    argv = split_command(command, root)
    if allowed is not None:
        check_allowed(argv, allowed, confirm)
    limits = COMMAND_LIMITS if confine.jailed() else None
    captured = capture(argv, root, timeout=timeout, cap=cap, limits=limits)
    text = render_output(captured, cap)
    if captured.timed_out:
        raise ToolError(
            f"the command timed out after {timeout:g} s and was killed; output so far:\n{text}"
        )
    return f"{text}\n[exit code: {captured.exit_code}]"


def capture(argv: list[str], root: Path, *, timeout: float, cap: int,
            limits: jail.Limits | None = None, readonly: Sequence[Path] = ()) -> Captured:
    """Run ``argv`` with the sandbox environment, keeping at most ``cap`` bytes of output.

    With ``limits`` it runs in the jail (``ctxlab.jail.wrap``), ``root`` its writable folder,
    ``readonly`` folders bound read-only, its CPU time capped at ``timeout`` as well.
    """
    env = safe_env(root)
    program = str(root / argv[0]) if "/" in argv[0] else shutil.which(argv[0], path=env["PATH"])
    if program is None or not os.access(program, os.X_OK) or os.path.isdir(program):
        raise ToolError(f"command not found: {argv[0]!r}")
    if limits is not None:
        argv = jail.wrap(argv, writable=root, readonly=readonly,
                         limits=for_timeout(limits, timeout), env=env)
    read_end, write_end = os.pipe()
    try:
        running = forkserver.start(argv, root, env, write_end)
    except OSError as exc:
        os.close(read_end)
        raise ToolError(f"cannot run {argv[0]!r}: {exc.strerror or exc}") from None
    finally:
        os.close(write_end)
    deadline = time.monotonic() + timeout
    kept = bytearray()
    total = 0
    timed_out = False
    with contextlib.closing(running), open(read_end, "rb", buffering=0) as output, \
            selectors.DefaultSelector() as selector:
        selector.register(output, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            if not selector.select(remaining):
                continue
            chunk = os.read(output.fileno(), _CHUNK)
            if not chunk:
                break
            total += len(chunk)
            if len(kept) < cap:
                kept += chunk[: cap - len(kept)]
        dropped = total - len(kept)
        if not timed_out:
            code = running.exit_code(max(deadline - time.monotonic(), 0))
            if code is not None:
                return Captured(bytes(kept), dropped, code, timed_out=False)
            # output closed but the command is still running
        return Captured(bytes(kept), dropped, running.stop(_GRACE), timed_out=True)


def render_output(captured: Captured, cap: int) -> str:
    """Decoded output, or a note when it is binary; says how much the cap dropped."""
    if b"\x00" in captured.output:
        return f"[binary output: {len(captured.output) + captured.dropped} bytes]"
    text = captured.output.decode("utf-8", errors="replace").rstrip("\n") or "(no output)"
    if captured.dropped:
        text += f"\n[output truncated: {captured.dropped} bytes dropped after the first {cap}]"
    return text
