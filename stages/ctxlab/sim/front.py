"""The HTTP face of the simulator (DESIGN §3): routes, authentication, rate limits, errors.

``HttpFront.handle()`` takes a method, path, headers and body bytes and returns a
``SimResponse``; the in-process SDK client (``transport``) and the HTTP server (``server``) are
thin adapters around it. Order of work: due batch work → route → auth → version → rate limit →
JSON → shape (``schema``) → injected fault → the simulator's own work (``engine``). Every error
carries a ``request_id`` in its body and a ``request-id`` header; with limits set, every answer
carries the ``anthropic-ratelimit-*`` headers (``ratelimit``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from . import batch_api, betas, catalog, guard, sse, wording
from .errors import APIError
from .faults import as_error
from .schema import parse

if TYPE_CHECKING:
    from .batch import Batch
    from .clock import SimClock
    from .faults import FaultPlan
    from .ratelimit import RateLimiter


@dataclass
class SimResponse:
    """What goes back on the wire; ``timeout`` means the connection hangs instead."""

    status: int
    headers: dict[str, str]
    body: bytes = b""
    timeout: bool = False


@dataclass
class Call:
    """One handled request, for inspection by tests and notebooks."""

    path: str
    status: int
    usage: dict[str, Any] | None = None
    error: str | None = None


class HttpFront:
    """The routes of a ``Simulator`` (its state is declared there)."""

    clock: SimClock
    faults: FaultPlan
    api_key: str | None
    calls: list[Call]
    rate_limits: RateLimiter | None
    batches: dict[str, Batch]
    today: date | None

    def day(self) -> date:
        """The day the model table is read on: ``today`` when set (``ctxlab serve --date``),
        else the simulated clock's day (docs: model-deprecations — a retired model's requests
        fail, a deprecated one still answers)."""
        if self.today is not None:
            return self.today
        return datetime.fromtimestamp(self.clock.epoch + self.clock.now, UTC).date()

    def handle(self, method: str, path: str, headers: dict[str, str],
               body: bytes | dict[str, Any]) -> SimResponse:
        """Answer one HTTP request; a client's mistake is a 4xx, never an exception. Batch work
        due by now runs first; every answer carries the rate-limit headers when limits are set."""
        headers = {k.lower(): v for k, v in headers.items()}
        route, _, query = path.partition("?")
        route = route.rstrip("/")
        for batch in list(self.batches.values()):
            batch.advance(self.clock.now, batch_api.runner(self))
        try:
            answer = self._route(method, route, query, headers, body)
        except APIError as error:
            return self.refuse(error, route)
        return self._limited(answer, route)

    def refuse(self, error: APIError, route: str = "") -> SimResponse:
        """An error answer with its ``request_id`` (body) and ``request-id`` (header); the
        server uses it too for what it refuses before reading a body (413)."""
        request_id = self._request_id()
        self.calls.append(Call(route, error.status, error=error.message))
        answer = SimResponse(error.status, {"request-id": request_id, **error.headers,
                                            "content-type": "application/json"},
                             json.dumps(error.body(request_id)).encode())
        return self._limited(answer, route)

    def _request_id(self) -> str:
        return f"req_sim{len(self.calls) + 1:012d}"

    def _limited(self, answer: SimResponse, route: str) -> SimResponse:
        if self.rate_limits is not None and not answer.timeout:
            family = "batches" if batch_api.owns(route) else "messages"
            answer.headers.update(self.rate_limits.headers(family, self.clock.now,
                                                           self.clock.stamp))
        return answer

    def _route(self, method: str, route: str, query: str, headers: dict[str, str],
               body: bytes | dict[str, Any]) -> SimResponse:
        listing = method == "GET" and (route == "/v1/models" or route.startswith("/v1/models/"))
        batches = batch_api.owns(route)
        if not (listing or batches) and (method != "POST" or route not in (
                "/v1/messages", "/v1/messages/count_tokens")):
            raise APIError(404, wording.NOT_FOUND)
        self._authenticate(headers)
        if not headers.get("anthropic-version", "").strip():
            raise APIError(400, wording.MISSING_VERSION)
        betas.read(headers)  # an unknown beta is refused on every route
        if self.rate_limits is not None:
            self.rate_limits.admit("batches" if batches else "messages", self.clock.now)
        if listing:
            return self._answer(route, catalog.answer(route, query, self.day()))
        if batches:
            created = method == "POST" and route == batch_api.ROUTE
            found = batch_api.answer(self, method, route, query, headers,
                                     _payload(body) if created else None)
            if isinstance(found, bytes):  # the results file
                answer = SimResponse(200, {"request-id": self._request_id(),
                                           "content-type": "application/binary"}, found)
                self.calls.append(Call(route, 200))
                return answer
            return self._answer(route, found)
        count_only = route.endswith("count_tokens")
        req = parse(_payload(body), headers, count_only=count_only)
        fault = self.faults.next_fault(req)
        if fault is not None and fault.kind == "timeout":
            self.calls.append(Call(route, 0, error="timeout"))
            return SimResponse(0, {}, timeout=True)
        if fault is not None and fault.kind not in ("midstream", "empty") or (
                fault is not None and fault.kind == "midstream" and not req.stream):
            raise as_error(fault, self.rate_limits, self.clock.now)
        result = self.count_tokens(req) if count_only else self.create(req, fault)
        if self.rate_limits is not None and "usage" in result:
            self.rate_limits.charge(result["usage"], self.clock.now)
        if not count_only and req.stream:
            request_id = self._request_id()
            self.calls.append(Call(route, 200, usage=result.get("usage")))
            failure = {"type": "overloaded_error", "message": wording.OVERLOADED}
            midstream = fault is not None and fault.kind == "midstream"
            body_out = sse.events(result, fail_with=failure if midstream else None)
            return SimResponse(200, {"request-id": request_id,
                                     "content-type": "text/event-stream"}, body_out)
        return self._answer(route, result)

    def _answer(self, route: str, result: dict[str, Any]) -> SimResponse:
        """A 200 JSON answer, recorded in ``calls``."""
        request_id = self._request_id()
        self.calls.append(Call(route, 200, usage=result.get("usage")))
        return SimResponse(200, {"request-id": request_id, "content-type": "application/json"},
                           json.dumps(result, ensure_ascii=False).encode())

    def _authenticate(self, headers: dict[str, str]) -> None:
        """R1: ``x-api-key`` or ``Authorization: Bearer``; any key unless one is configured."""
        key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        if not key.strip():
            raise APIError(401, wording.MISSING_KEY)
        if self.api_key is not None and key != self.api_key:
            raise APIError(401, wording.INVALID_KEY)



def _payload(body: bytes | guard.ParsedBody) -> Any:
    """The request's JSON, checked for what no later step could handle (``guard``)."""
    if isinstance(body, guard.ParsedBody):  # parsed by the server, outside its lock
        guard.check(body.payload, body.escapes)
        return body.payload
    payload = _json(body)
    guard.check(payload, guard.has_escapes(body))
    return payload


def _json(body: bytes) -> Any:
    try:
        return json.loads(body or b"")
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        raise APIError(400, wording.BAD_JSON.format(detail=error)) from None


