"""The client of the commands' fork server (``reaper.py``, DESIGN §2).

Each process that runs commands starts the server once, on its first command, and stops it
when it exits (waiting for it, so the commands' CPU time is counted where it was spent). A
process forked from this one starts a server of its own.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

_REAPER = Path(__file__).with_name("reaper.py")
_lock = threading.Lock()
_servers: dict[int, Server] = {}  # by the pid of the process that started it


class Running:
    """One command under its reaper: the reaper's pid and the line it reports its exit on."""

    def __init__(self, line: socket.socket) -> None:
        self.line = line
        self._read = b""
        pid = self._next(None)
        if pid is None:
            line.close()
            raise OSError("the fork server did not start the command")
        self.pid = pid

    def exit_code(self, timeout: float | None) -> int | None:
        """The command's exit code (negative: the signal that ended it); None if it has not
        ended within ``timeout``; -SIGKILL if its reaper was killed before it could tell."""
        try:
            code = self._next(timeout)
        except TimeoutError:
            return None
        return -signal.SIGKILL if code is None else code

    def stop(self, grace: float) -> int:
        """Ask the reaper to kill everything below it; if it does not end within ``grace``,
        kill its process group (the server keeps both ids until the line is closed)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)
        code = self.exit_code(grace)
        if code is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            code = -signal.SIGKILL
        return code

    def close(self) -> None:
        self.line.close()  # now the server reaps the reaper

    def _next(self, timeout: float | None) -> int | None:
        """The next number on the line; None at its end."""
        self.line.settimeout(None if timeout is None else max(timeout, 0.001))  # 0: non-blocking
        while b"\n" not in self._read:
            chunk = self.line.recv(64)  # TimeoutError past the timeout
            if not chunk:
                return None
            self._read += chunk
        number, self._read = self._read.split(b"\n", 1)
        return int(number)


class Server:
    """A running fork server and the socket its requests go through."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", str(_REAPER), str(theirs.fileno())],
            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            env={}, start_new_session=True)
        theirs.close()
        self.control = ours

    def start(self, request: dict[str, Any], output: int) -> Running:
        line, theirs = socket.socketpair()
        body = json.dumps(request).encode()
        try:
            with _lock:
                socket.send_fds(self.control, [len(body).to_bytes(8, "big")],
                                [theirs.fileno(), output])
                self.control.sendall(body)
        except OSError:
            line.close()
            raise
        finally:
            theirs.close()
        return Running(line)

    def stop(self) -> None:
        self.control.close()  # the server stops what is still running and exits
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start(argv: list[str], cwd: Path, env: dict[str, str], output: int) -> Running:
    """Start ``argv`` in ``cwd`` with exactly ``env``, its output (both streams) on the
    descriptor ``output``, under a reaper of its own."""
    request = {"argv": argv, "cwd": str(cwd), "env": env}
    try:
        return _server().start(request, output)
    except OSError:  # the server is gone (killed, say): one more, once
        gone = _servers.pop(os.getpid(), None)
        if gone is not None:
            gone.stop()
        return _server().start(request, output)


def _server() -> Server:
    with _lock:
        server = _servers.get(os.getpid())
        if server is None or server.process.poll() is not None:
            server = _servers[os.getpid()] = Server()
        return server


@atexit.register
def _stop_servers() -> None:
    server = _servers.pop(os.getpid(), None)
    if server is not None:
        server.stop()
