"""The offline Messages API: one ``Simulator`` answers ``/v1/messages``, ``count_tokens``,
``/v1/models`` and the Message Batches endpoints.

It is transport-free: ``handle()`` (``front``) takes a method, path, headers and body bytes and
returns a ``SimResponse``. Order of work for a create request, after the front's checks:
message rules (``validate``) → server-side edits → window → compaction → cache → the
responder's answer → output limits → usage and cost. A batch request (``batch_api``) goes the
same way, at its own start time on the simulated clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ..tokens import count_block, count_text
from . import (
    cache,
    choice,
    compaction,
    editing,
    images,
    options,
    output,
    render,
    server_tools,
    validate,
    wording,
)
from .batch import Batch
from .clock import Latency, SimClock
from .errors import APIError
from .faults import Fault, FaultPlan
from .front import Call, HttpFront, SimResponse
from .ratelimit import RateLimiter
from .responder import EchoResponder, ModelView, Reply, Responder
from .schema import Request, parse

__all__ = ["Call", "SimResponse", "Simulator"]

COMPACT_BETA = "compact-2026-01-12"
RESULTS = frozenset(server_tools.RESULT.values())


@dataclass
class Simulator(HttpFront):
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
    rate_limits: RateLimiter | None = None  # None: no limits, no rate-limit headers
    batches: dict[str, Batch] = field(default_factory=dict)  # Message Batches by id
    batches_made: int = 0
    today: date | None = None  # None: the simulated clock's day (``day()``)

    def _prepare(self, req: Request, *, chained: bool = True
                 ) -> tuple[render.Rendered, int, list[dict[str, Any]]]:
        """Rules, R35 drop and clearing edits; returns (rendered, total before edits, edits).
        A retired model is refused first, worded as an unknown one (a 404). A count
        (``chained=False``) renders no prefix hashes."""
        if req.spec.lifecycle(self.day()) == "retired":
            raise APIError(404, wording.UNKNOWN_MODEL.format(model=req.model))
        validate.check_messages(req)
        validate.check_options(req)
        images.check_payloads(req.messages, req.origin)
        compaction.drop_before_last(req)
        rendered = render.render(req, chained=chained)
        cache.breakpoints(req, rendered)
        before = rendered.total
        applied = editing.apply(req, before)
        if applied:
            rendered = render.render(req, chained=chained)
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
        rendered, before, _ = self._prepare(req, chained=False)
        result: dict[str, Any] = {"input_tokens": rendered.total}
        if req.context_management is not None:
            result["context_management"] = {"original_input_tokens": before}
        return result

    def create(self, req: Request, fault: Fault | None = None, *,
               at: float | None = None) -> dict[str, Any]:
        """One ``messages.create``: validate, edit, compact, cache, answer, bill. ``at``: a
        batch request's start, which leaves the clock where it is."""
        compact = compaction.settings(req)
        rendered, _, applied = self._prepare(req)
        validate.check_window(req, rendered.total)
        start = self.clock.now if at is None else at
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
            reply = server_tools.answer(view, self.responder.respond(view))
            reply = choice.honour(view, reply, tool_choice=not self.ignore_tool_choice)
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
        searched = server_tools.usage(blocks)
        results = sum(count_block(b) for b in blocks if b.get("type") in RESULTS)
        out_tokens -= results  # a server tool's result is read as input, as the API bills it
        usage = self._bill(req, rendered, start, out_tokens)
        if searched is not None:
            usage["input_tokens"] += results
            usage["server_tool_use"] = searched
        if COMPACT_BETA in req.betas:  # R33: every response under the beta has iterations
            if not paused:
                iterations.append({"type": "message", "input_tokens": usage["input_tokens"],
                                   "output_tokens": out_tokens})
            else:
                usage.update(input_tokens=0, cache_read_input_tokens=0,
                             cache_creation_input_tokens=0)
            usage["iterations"] = iterations
        if self.auto_advance and at is None:
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
