"""The offline Messages API: one ``Simulator`` answers ``/v1/messages`` and ``count_tokens``.

It is transport-free: ``handle()`` takes a method, path, headers and body bytes and returns a
``SimResponse``. The in-process SDK client (``transport``) and the HTTP server (``server``) are
thin adapters around it. Order of work for a create request: auth → JSON → shape (``schema``) →
injected fault → message rules (``validate``) → server-side edits → window → compaction →
cache → the responder's answer → output limits → usage and cost.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..tokens import count_text
from . import (
    cache,
    catalog,
    choice,
    compaction,
    editing,
    guard,
    images,
    options,
    output,
    render,
    sse,
    validate,
    wording,
)
from .clock import Latency, SimClock
from .errors import APIError
from .faults import Fault, FaultPlan, as_error
from .responder import EchoResponder, ModelView, Reply, Responder
from .schema import Request, parse

COMPACT_BETA = "compact-2026-01-12"


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


@dataclass
class Simulator:
    """The simulated API; ``responder`` is the model, ``clock`` the simulated time."""

    responder: Responder = field(default_factory=EchoResponder)
    clock: SimClock = field(default_factory=SimClock)
    latency: Latency = field(default_factory=Latency)
    faults: FaultPlan = field(default_factory=FaultPlan)
    api_key: str | None = None
    auto_advance: bool = True
    store: cache.CacheStore = field(default_factory=cache.CacheStore)
    calls: list[Call] = field(default_factory=list)
    # True models an Anthropic-compatible endpoint whose model ignores tool_choice (a fault for
    # the reliability lessons, §9.6); the real API always honours it.
    ignore_tool_choice: bool = False

    def handle(self, method: str, path: str, headers: dict[str, str],
               body: bytes | dict[str, Any]) -> SimResponse:
        """Answer one HTTP request; a client's mistake is a 4xx, never an exception."""
        headers = {k.lower(): v for k, v in headers.items()}
        request_id = f"req_sim{len(self.calls) + 1:012d}"
        route, _, query = path.partition("?")
        route = route.rstrip("/")
        try:
            listing = method == "GET" and (route == "/v1/models" or
                                           route.startswith("/v1/models/"))
            if not listing and (method != "POST" or route not in ("/v1/messages",
                                                                  "/v1/messages/count_tokens")):
                raise APIError(404, wording.NOT_FOUND)
            self._authenticate(headers)
            if not headers.get("anthropic-version", "").strip():
                raise APIError(400, wording.MISSING_VERSION)
            if listing:
                return self._answer(route, request_id, catalog.answer(route, query))
            if isinstance(body, guard.ParsedBody):  # parsed by the server, outside its lock
                payload = body.payload
                guard.check(payload, body.escapes)
            else:
                payload = _json(body)
                guard.check(payload, guard.has_escapes(body))
            count_only = route.endswith("count_tokens")
            req = parse(payload, headers, count_only=count_only)
            fault = self.faults.next_fault(req)
            if fault is not None and fault.kind == "timeout":
                self.calls.append(Call(route, 0, error="timeout"))
                return SimResponse(0, {}, timeout=True)
            if fault is not None and fault.kind not in ("midstream", "empty") or (
                    fault is not None and fault.kind == "midstream" and not req.stream):
                raise as_error(fault)
            result = self.count_tokens(req) if count_only else self.create(req, fault)
        except APIError as error:
            self.calls.append(Call(route, error.status, error=error.message))
            return SimResponse(error.status, {"request-id": request_id, **error.headers,
                                              "content-type": "application/json"},
                               json.dumps(error.body(request_id)).encode())
        if not count_only and req.stream:
            self.calls.append(Call(route, 200, usage=result.get("usage")))
            failure = {"type": "overloaded_error", "message": wording.OVERLOADED}
            midstream = fault is not None and fault.kind == "midstream"
            body_out = sse.events(result, fail_with=failure if midstream else None)
            return SimResponse(200, {"request-id": request_id,
                                     "content-type": "text/event-stream"}, body_out)
        return self._answer(route, request_id, result)

    def _answer(self, route: str, request_id: str, result: dict[str, Any]) -> SimResponse:
        """A 200 JSON answer, recorded in ``calls``."""
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

    def _prepare(self, req: Request) -> tuple[render.Rendered, int, list[dict[str, Any]]]:
        """Rules, R35 drop and clearing edits; returns (rendered, total before edits, edits)."""
        validate.check_messages(req)
        validate.check_options(req)
        images.check_payloads(req)
        compaction.drop_before_last(req)
        rendered = render.render(req)
        cache.breakpoints(req, rendered)
        before = rendered.total
        applied = editing.apply(req, before)
        if applied:
            rendered = render.render(req)
        return rendered, before, applied

    def view(self, body: dict[str, Any]) -> ModelView:
        """What the model is shown for the request ``body`` (validated, edits applied), with
        where each block sits: how ``ctxlab rot`` builds its needle requests."""
        req = parse(body, {})
        rendered, _, _ = self._prepare(req)
        validate.check_window(req, rendered.total)
        return _view(req, rendered)

    def count_tokens(self, req: Request) -> dict[str, Any]:
        """R37 and R31: the create-time total, edits applied, no caching, no new compaction."""
        compaction.settings(req)
        rendered, before, _ = self._prepare(req)
        result: dict[str, Any] = {"input_tokens": rendered.total}
        if req.context_management is not None:
            result["context_management"] = {"original_input_tokens": before}
        return result

    def create(self, req: Request, fault: Fault | None = None) -> dict[str, Any]:
        """One ``messages.create``: validate, edit, compact, cache, answer, bill."""
        compact = compaction.settings(req)
        rendered, _, applied = self._prepare(req)
        validate.check_window(req, rendered.total)
        start = self.clock.now
        prefix: list[dict[str, Any]] = []
        iterations: list[dict[str, Any]] = []
        if compact is not None and rendered.total >= compact["trigger"]:  # R33
            summary = self.responder.summarize(_view(req, rendered), compact["instructions"])
            iterations.append({"type": "compaction", "input_tokens": rendered.total,
                               "output_tokens": count_text(summary)})
            prefix.append(compaction.compacted(req, summary))
            rendered = render.render(req)
        view = _view(req, rendered)
        digest = view.digest
        msg_id = output.message_id(digest)
        paused = bool(prefix) and compact is not None and compact["pause"]  # R34
        if paused or req.max_tokens == 0 or (fault is not None and fault.kind == "empty"):
            reply = Reply([], "compaction" if paused else None)
        else:
            reply = choice.honour(view, self.responder.respond(view),
                                  tool_choice=not self.ignore_tool_choice)
        reply, stopped_at = output.stop_at(reply, options.stop_sequences(req.body))
        blocks = output.finish(reply, digest, msg_id)
        room = req.spec.context_window - rendered.total
        budget = req.max_tokens if req.spec.rejects_overflowing_max_tokens else min(
            req.max_tokens, room)
        blocks, out_tokens, cut = output.limit(blocks, budget)
        if req.max_tokens == 0 or (cut and budget == req.max_tokens):
            stop = "max_tokens"
        elif cut:
            stop = "model_context_window_exceeded"
        elif stopped_at is not None:
            stop = "stop_sequence"
        else:
            stop = output.stop_reason(reply, blocks)
        usage = self._bill(req, rendered, start, out_tokens)
        if COMPACT_BETA in req.betas:  # R33: every response under the beta has iterations
            if not paused:
                iterations.append({"type": "message", "input_tokens": usage["input_tokens"],
                                   "output_tokens": out_tokens})
            else:
                usage.update(input_tokens=0, cache_read_input_tokens=0,
                             cache_creation_input_tokens=0)
            usage["iterations"] = iterations
        if self.auto_advance:
            self.clock.advance(self.latency.duration(out_tokens))
        message = {"id": msg_id, "type": "message", "role": "assistant", "model": req.model,
                   "content": prefix + blocks, "stop_reason": stop,
                   "stop_sequence": stopped_at if stop == "stop_sequence" else None,
                   "usage": usage}
        if req.context_management is not None:
            message["context_management"] = {"applied_edits": applied}
        return message

    def _bill(self, req: Request, rendered: render.Rendered, start: float,
              out_tokens: int) -> dict[str, Any]:
        marks = cache.breakpoints(req, rendered)
        part = self.store.apply(rendered, marks, req.spec.cache_minimum, start,
                                self.latency.first_token_s)
        return {"input_tokens": part.uncached, "output_tokens": out_tokens,
                "cache_read_input_tokens": part.read,
                "cache_creation_input_tokens": part.creation,
                "cache_creation": {"ephemeral_5m_input_tokens": part.write_5m,
                                   "ephemeral_1h_input_tokens": part.write_1h},
                "service_tier": "standard"}


def _json(body: bytes) -> Any:
    try:
        return json.loads(body or b"")
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        raise APIError(400, wording.BAD_JSON.format(detail=error)) from None


def _view(req: Request, rendered: render.Rendered | None = None) -> ModelView:
    """What the model sees; with ``rendered``, where each block sits in the request (for the
    brain's retrieval model, DESIGN §4)."""
    spans = () if rendered is None else tuple(
        (p.cumulative - p.tokens, p.tokens) for p in rendered.positions if p.zone != "tools")
    return ModelView(model=req.model, system=req.system, messages=req.messages, tools=req.tools,
                     tool_choice=req.tool_choice, thinking=req.thinking,
                     max_tokens=req.max_tokens or 0, body=req.body,
                     input_tokens=rendered.total if rendered is not None else 0,
                     window=req.spec.context_window, spans=spans)
