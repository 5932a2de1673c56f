"""``ctxlab serve``: the simulator behind a real HTTP server on localhost (DESIGN §3).

Any Anthropic-compatible client works against it: ``anthropic.Anthropic(base_url=...)``, curl,
other SDKs. Requests are handled one at a time (the simulator keeps one cache and one clock).
A client's mistake is answered with its 4xx and one log line; nothing a client sends can make
the server print a traceback.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from . import wording
from .engine import Simulator
from .errors import APIError

MAX_BODY = 32 * 1024 * 1024  # the API's request size limit (API notes §2.2, row l)


class _Handler(BaseHTTPRequestHandler):
    server: SimServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms ACK wait

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        raw_length = self.headers.get("content-length") or "0"
        length = int(raw_length) if raw_length.strip().isdigit() else -1
        if length < 0:
            self.close_connection = True  # the body's end is unknown: do not read it
            error = APIError(400, wording.BAD_CONTENT_LENGTH).body("req_sim_server")
            self._send(400, {"content-type": "application/json"}, json.dumps(error).encode())
            return
        if length > MAX_BODY:
            self.close_connection = True  # the unread body must not be parsed as a request
            self._send(413, {"content-type": "application/json"},
                       b'{"type":"error","error":{"type":"request_too_large",'
                       b'"message":"Request exceeds the maximum allowed number of bytes."}}')
            return
        body = self.rfile.read(length) if length else b""
        with self.server.lock:
            answer = self.server.sim.handle("POST", self.path, dict(self.headers), body)
        if answer.timeout:
            time.sleep(self.server.timeout_delay)
            self.close_connection = True
            return
        self._send(answer.status, answer.headers, answer.body)

    def do_GET(self) -> None:  # noqa: N802
        with self.server.lock:
            answer = self.server.sim.handle("GET", self.path, dict(self.headers), b"")
        self._send(answer.status, answer.headers, answer.body)

    def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.log:
            self.server.log(f"{self.address_string()} {format % args}")


class SimServer(ThreadingHTTPServer):
    """A threading HTTP server that serializes access to one ``Simulator``."""

    daemon_threads = True

    def __init__(self, sim: Simulator, host: str = "127.0.0.1", port: int = 0, *,
                 log: Any = None, timeout_delay: float = 30.0) -> None:
        super().__init__((host, port), _Handler)
        self.sim = sim
        self.lock = threading.Lock()
        self.log = log
        self.timeout_delay = timeout_delay

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> threading.Thread:
        """Serve in a background thread (tests, notebooks); stop with ``shutdown()``."""
        thread = threading.Thread(target=self.serve_forever, daemon=True)
        thread.start()
        return thread
