"""Starting one graded run and reading what it reports (``ctxlab room``).

The run gets the write end of a pipe as file descriptor ``fd`` — no path: the grader's log is
this pipe's other end, in the grader's memory, outside every participant's reach. Its output
(stdout and stderr) is kept up to ``cap`` bytes and the pipe's up to ``LOG_CAP``. The run is a
session of its own; at the time limit, and when it ends, its process group is killed. In the
jail that is the whole run (bwrap's PID namespace dies with it); unjailed, a process that
left the session can outlive it (docs/workshop.md).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

LOG_CAP = 16 * 1024 * 1024
CHUNK = 65_536
DRAIN = 2.0  # seconds to read what is left once the run has ended


@dataclass(frozen=True)
class Spawned:
    output: bytes  # the first ``cap`` bytes of stdout and stderr
    log: bytes  # what came through the pipe, up to ``LOG_CAP``
    exit_code: int
    timed_out: bool
    flooded: bool  # the pipe carried more than ``LOG_CAP``


def spawn(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None, timeout: float,
          cap: int) -> Spawned:
    """Run ``argv``; its pipe's descriptor number is ``{fd}`` in ``argv`` (formatted here)."""
    read_end, write_end = os.pipe()
    try:
        process = subprocess.Popen(
            [a.replace("{fd}", str(write_end)) for a in argv], cwd=cwd, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            pass_fds=(write_end,), start_new_session=True)
    except OSError:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    out_fd = process.stdout.fileno()  # type: ignore[union-attr]
    kept = {out_fd: bytearray(), read_end: bytearray()}
    limit = {out_fd: cap, read_end: LOG_CAP}
    flooded = timed_out = ended = False
    end = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector, contextlib.closing(process.stdout), \
            open(read_end, "rb", buffering=0):
        for fd in kept:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            now = time.monotonic()
            if not ended and process.poll() is not None:
                ended, end = True, min(end, now + DRAIN)
                _kill(process)  # what it left running
            if now >= end:
                if ended:
                    break  # something outside the group still holds the pipes
                timed_out, ended, end = True, True, now + DRAIN
                _kill(process)
                continue
            for key, _ in selector.select(min(end - now, 0.5)):
                chunk = os.read(key.fd, CHUNK)
                if not chunk:
                    selector.unregister(key.fd)
                    continue
                room = max(limit[key.fd] - len(kept[key.fd]), 0)
                kept[key.fd] += chunk[:room]
                flooded = flooded or (key.fd == read_end and len(chunk) > room)
        _kill(process)
        code = process.wait()
    return Spawned(bytes(kept[out_fd]), bytes(kept[read_end]), code, timed_out, flooded)


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
