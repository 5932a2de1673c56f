"""What every client check shares: the task, the structured answer, and ``ctxlab serve``."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator

import pydantic

MODEL = "claude-haiku-4-5"
KEY = "sk-ant-offline"
TASK = "Use add on 2 and 3, then tell me the sum."
QUESTION = "Judge the release: it works, mostly. Give 2 points."


class Verdict(pydantic.BaseModel):
    """The structured answer every client asks for."""

    summary: str
    confidence: float
    points: list[str]


def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b



@contextlib.contextmanager
def serve(ctxlab: str, *options: str) -> Iterator[str]:
    """``ctxlab serve OPTIONS`` on a free local port; yields its base URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([ctxlab, "serve", "--port", str(port), "--quiet", *options],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"ctxlab serve did not start: {server.stderr.read().decode()}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(10)
