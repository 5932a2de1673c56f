"""``ctxlab serve``: the simulator behind a real HTTP server on localhost (DESIGN §3).

Any Anthropic-compatible client works against it: ``anthropic.Anthropic(base_url=...)``, curl,
other SDKs. Each connection has its own thread; a request's body is read and parsed there, and
only the simulation itself takes the simulator's lock (it keeps one cache and one clock), so a
big or slow upload never makes another client wait. A connection idle for ``read_timeout``
seconds, or whose request is not complete after ``request_deadline`` seconds (a client that
trickles its bytes), is closed. A body over 32 MB (256 MB for a Message Batch) is answered 413
``request_too_large`` with the API's wording and a ``request_id``, before it is read. A
client's mistake is answered with its 4xx and one log line; a client that hangs up is one log
line; nothing a client sends can make the server print a traceback, and the log never echoes
the client's bytes (known routes are named, anything else is ``<other path>``).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from . import batch_api, wording
from .engine import Simulator
from .errors import APIError
from .guard import ParsedBody

MAX_BODY = 32 * 1024 * 1024  # the API's request size limit (API notes §2.2, row l)
BATCH_MAX_BODY = batch_api.MAX_BYTES  # a Message Batch's (docs: batch limitations)
TOO_LARGE = "Request exceeds the maximum allowed number of bytes."  # the API's 413 wording
_ROUTES = ("/v1/messages", "/v1/messages/count_tokens", "/v1/models", batch_api.ROUTE)
_METHODS = ("GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS")
_CHUNK = 1 << 20
BACKLOG = 1024
"""Connections the kernel queues before one is accepted (the standard library's 5 dropped
167 of 400 simultaneous ones); Linux caps it at ``net.core.somaxconn`` (4096 by default)."""


class _Handler(BaseHTTPRequestHandler):
    server: SimServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms ACK wait

    def setup(self) -> None:
        self.timeout = self.server.read_timeout  # per recv: an idle connection is closed
        super().setup()

    def handle_one_request(self) -> None:
        watchdog = threading.Timer(self.server.request_deadline, self._hang_up)
        watchdog.daemon = True
        self._watchdog = watchdog
        watchdog.start()
        try:
            super().handle_one_request()
        except (ConnectionError, TimeoutError, OSError) as error:
            self._note(f"connection closed: {type(error).__name__}")
            self.close_connection = True
        finally:
            watchdog.cancel()

    def _hang_up(self) -> None:
        """The request was not complete in time: close the socket under the reading thread."""
        self._note("request not complete in time; connection closed")
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        raw_length = self.headers.get("content-length") or "0"
        length = int(raw_length) if raw_length.strip().isdigit() else -1
        limit = BATCH_MAX_BODY if self.path.startswith(batch_api.ROUTE) else MAX_BODY
        if length < 0 or length > limit:
            self.close_connection = True  # the unread body must not be parsed as a request
            error = APIError(400, wording.BAD_CONTENT_LENGTH) if length < 0 else \
                APIError(413, TOO_LARGE)
            with self.server.lock:
                answer = self.server.sim.refuse(error, self.path.split("?", 1)[0])
            self._send(answer.status, answer.headers, answer.body)
            return
        body = self._read(length)
        if body is None:
            return
        self._watchdog.cancel()  # the request is in: what follows is the server's own time
        payload: bytes | ParsedBody = ParsedBody.of(body) or body  # parsed outside the lock
        del body
        with self.server.lock:
            answer = self.server.sim.handle("POST", self.path, dict(self.headers), payload)
        if answer.timeout:
            time.sleep(self.server.timeout_delay)
            self.close_connection = True
            return
        self._send(answer.status, answer.headers, answer.body)

    def _read(self, length: int) -> bytes | None:
        """The body, or None when the client hung up before sending all of it."""
        parts, left = [], length
        while left:
            chunk = self.rfile.read(min(left, _CHUNK))
            if not chunk:
                self._note(f"client closed the connection after {length - left} of "
                           f"{length} body bytes")
                self.close_connection = True
                return None
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)

    def do_GET(self) -> None:  # noqa: N802
        """GET, DELETE (a batch's deletion) and any other method: answered without a body (an
        unknown method is the API's JSON 404, with its request id); a body announced with one
        is not read, so the connection closes after the answer."""
        self._watchdog.cancel()
        if (self.headers.get("content-length") or "0").strip() != "0":
            self.close_connection = True
        with self.server.lock:
            answer = self.server.sim.handle(self.command, self.path, dict(self.headers), b"")
        self._send(answer.status, answer.headers, answer.body)

    do_DELETE = do_PUT = do_PATCH = do_OPTIONS = do_GET  # noqa: N815

    def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (ConnectionError, TimeoutError) as error:
            self._note(f"client went away before the answer: {type(error).__name__}")
            self.close_connection = True

    def _described(self) -> str:
        """The request line as the log shows it: nothing the client wrote is echoed."""
        method = getattr(self, "command", None)
        path = (getattr(self, "path", None) or "").split("?", 1)[0].rstrip("/")
        shown_path = path if path in _ROUTES else "<other path>"
        return f"{method if method in _METHODS else '?'} {shown_path}"

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        shown = [str(v) if str(v).isdigit() else "-" for v in (code, size)]
        self._note(f'"{self._described()}" {shown[0]} {shown[1]}')

    def log_error(self, format: str, *args: Any) -> None:
        code = args[0] if args and isinstance(args[0], int) else None
        if code:
            self._note(f"rejected a malformed request ({code})")
        else:  # http.server's own text, without its arguments (they hold the client's bytes)
            self._note("connection timed out and was closed" if "timed out" in format
                       else "request failed")

    def _note(self, text: str) -> None:
        if self.server.log:
            self.server.log(f"{self.client_address[0]} {text}")


class SimServer(ThreadingHTTPServer):
    """A threading HTTP server that serializes access to one ``Simulator``."""

    daemon_threads = True
    request_queue_size = BACKLOG

    def __init__(self, sim: Simulator, host: str = "127.0.0.1", port: int = 0, *,
                 log: Any = None, timeout_delay: float = 30.0, read_timeout: float = 30.0,
                 request_deadline: float = 120.0) -> None:
        super().__init__((host, port), _Handler)
        self.sim = sim
        self.lock = threading.Lock()
        self.log = log
        self.timeout_delay = timeout_delay
        self.read_timeout = read_timeout
        self.request_deadline = request_deadline

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Whatever escaped a handler is one log line, never a traceback."""
        if self.log:
            self.log(f"{client_address[0]} connection dropped after an error")

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> threading.Thread:
        """Serve in a background thread (tests, notebooks); stop with ``shutdown()``."""
        thread = threading.Thread(target=self.serve_forever, daemon=True)
        thread.start()
        return thread
