"""Run one command so that none of its processes outlives it (run as a script, DESIGN §2).

``run_command`` starts ``python -I -S reaper.py PROGRAM ARGS...``. On Linux the reaper makes
itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): every process the command
starts stays below it, even one that leaves the process group or the session
(``setsid``, ``start_new_session=True``) or whose parent exits, because an orphan is handed to
the nearest subreaper, never to init. When the command exits — or when ``run_command`` sends
SIGTERM at the timeout — the reaper SIGKILLs every process left below it, reaps them and exits
with the command's status. Elsewhere ``prctl`` is missing: the reaper still kills what it can
find below it, but a process that leaves the group and whose parent exits is not contained.
A process of the command that kills the reaper itself (only an interpreter can: the python3
allowance) leaves the rest uncontained too.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time

try:  # signal's functions without its enum wrappers, which cost a third of the start-up
    import _signal as signal  # every command pays it (CPython)
except ImportError:  # another interpreter
    import signal  # type: ignore[no-redef]

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make this process a child subreaper; False where the platform has no such thing."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def children(pid: int) -> list[int]:
    """The direct children of ``pid``."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listing:
            return [int(n) for n in listing.read().split()]
    except OSError:
        pass
    found = []
    for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as info:
                    fields = info.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[1]) == pid:
                found.append(int(name))
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``, parents before their children."""
    found, pending = [], [pid]
    while pending:
        for child in children(pending.pop()):
            found.append(child)
            pending.append(child)
    return found


def kill_all() -> None:
    """SIGKILL everything below this process and reap it, until nothing is left."""
    while True:
        for pid in descendants(os.getpid()):
            try:  # noqa: SIM105 (contextlib would add a sixth to every command's start-up)
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            reaped, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no child left, not even a zombie
        if not reaped:
            time.sleep(0.001)  # the killed ones are still dying


def _stop(signum: int, frame: object) -> None:
    kill_all()
    os._exit(128 + signum)


def main(argv: list[str]) -> None:
    become_subreaper()
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, _stop)
    pid = os.fork()
    if pid == 0:
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(signum, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as error:
            os.write(2, f"cannot run {argv[0]!r}: {error.strerror}\n".encode())
            os._exit(127)
    _, status = os.waitpid(pid, 0)
    kill_all()
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # killed by a signal: end the same way, so the caller sees it
        try:  # noqa: SIM105 (as above)
            signal.signal(-code, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL has no handler to reset
            pass
        os.kill(os.getpid(), -code)
    os._exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
