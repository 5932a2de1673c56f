"""The Message Batches endpoints (docs: batch-processing; Message Batches API reference).

``POST /v1/messages/batches`` checks the envelope at once (1 to 100,000 requests, each a unique
``custom_id`` matching ``^[a-zA-Z0-9_-]{1,64}$`` and a ``params`` object; the 256 MB size limit
is the server's 413) and answers the new batch, ``in_progress``. Each request's ``params`` are
validated when it runs, as a message would be, plus the batch's own refusals (``stream``,
``speed``, ``max_tokens: 0``): a request that fails is an ``errored`` result worded as the
Messages API words it, and bills nothing. A succeeded message is billed at the batch tier
(``usage.service_tier`` ``batch``: half price, with the cache multipliers on top). Then:
retrieve, list (newest first, paged), cancel, delete (once ended) and ``results`` as JSONL at
the ``results_url`` the batch shows once it has ended.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

from . import paging, wording
from .batch import Batch, Item, Runner
from .errors import APIError, invalid
from .schema import Request, parse

if TYPE_CHECKING:
    from .clock import Latency, SimClock


class Simulator(Protocol):
    """What the batch endpoints use of the simulator (``sim.engine.Simulator``), named here so
    that this module does not import the engine that routes to it."""

    clock: SimClock
    latency: Latency
    batches: dict[str, Batch]
    batches_made: int

    def create(self, req: Request, fault: Any = None, *,
               at: float | None = None) -> dict[str, Any]: ...

ROUTE = "/v1/messages/batches"
MAX_REQUESTS = 100_000
MAX_BYTES = 256 * 1024 * 1024  # the batch size limit (the server answers 413 above it)
_CUSTOM_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def owns(route: str) -> bool:
    """Whether ``route`` (no query, no trailing slash) is a Message Batches route."""
    return route == ROUTE or route.startswith(ROUTE + "/")


def answer(sim: Simulator, method: str, route: str, query: str, headers: dict[str, str],
           payload: Any) -> dict[str, Any] | bytes:
    """The body for a batches route; ``payload`` is the parsed body of a create."""
    parts = [p for p in route.removeprefix(ROUTE).split("/") if p]
    base = f"http://{headers.get('host', 'localhost')}{ROUTE}"
    now, stamp = sim.clock.now, sim.clock.stamp
    if not parts and method == "POST":
        batch = create(sim, headers, payload)
        return batch.view(now, stamp, base)
    if not parts and method == "GET":
        newest = list(reversed(sim.batches))
        return paging.page(newest, query, lambda i: sim.batches[i].view(now, stamp, base))
    if not parts:
        raise APIError(404, wording.NOT_FOUND)
    batch = sim.batches.get(parts[0])
    if batch is None or len(parts) > 2:
        raise APIError(404, wording.RESOURCE_NOT_FOUND)
    action = (method, parts[1] if len(parts) == 2 else "")
    if action == ("GET", ""):
        return batch.view(now, stamp, base)
    if action == ("POST", "cancel"):
        batch.cancel(now)
        return batch.view(now, stamp, base)
    ended = batch.status(now) == "ended"
    if action == ("DELETE", ""):
        if not ended:
            raise invalid(wording.BATCH_NOT_ENDED.format(id=batch.id))
        del sim.batches[batch.id]
        return {"id": batch.id, "type": "message_batch_deleted"}
    if action == ("GET", "results"):
        if not ended:
            raise invalid(wording.BATCH_NO_RESULTS.format(id=batch.id))
        return batch.results()
    raise APIError(404, wording.NOT_FOUND)


def create(sim: Simulator, headers: dict[str, str], payload: Any) -> Batch:
    """A new batch from a checked envelope; the requests due now start at once."""
    items = [Item(r["custom_id"], r["params"]) for r in envelope(payload)]
    now = sim.clock.now
    batch_id = f"msgbatch_sim{sim.batches_made + 1:012d}"
    sim.batches_made += 1
    kept = {k: v for k, v in headers.items() if k == "anthropic-beta"}
    batch = Batch(batch_id, now, items, kept)
    sim.batches[batch_id] = batch
    batch.advance(now, runner(sim))
    return batch


def envelope(payload: Any) -> list[dict[str, Any]]:
    """The ``requests`` list, checked: count, each ``custom_id`` and ``params``, uniqueness."""
    if not isinstance(payload, dict):
        raise invalid(wording.WRONG_TYPE.format(path="body", expected="a valid dictionary"))
    for name in payload:
        if name != "requests":
            raise invalid(wording.EXTRA_INPUT.format(field=name))
    requests = payload.get("requests")
    if requests is None:
        raise invalid(wording.FIELD_REQUIRED.format(path="requests"))
    if not isinstance(requests, list):
        raise invalid(wording.WRONG_TYPE.format(path="requests", expected="a valid list"))
    if not requests:
        raise invalid(wording.BATCH_TOO_FEW)
    if len(requests) > MAX_REQUESTS:
        raise invalid(wording.BATCH_TOO_MANY.format(limit=MAX_REQUESTS, n=len(requests)))
    seen: set[str] = set()
    for i, request in enumerate(requests):
        path = f"requests.{i}"
        if not isinstance(request, dict):
            raise invalid(wording.WRONG_TYPE.format(path=path, expected="a valid dictionary"))
        for name in request:
            if name not in ("custom_id", "params"):
                raise invalid(wording.EXTRA_INPUT.format(field=f"{path}.{name}"))
        for name, kind, expected in (("custom_id", str, "a valid string"),
                                     ("params", dict, "a valid dictionary")):
            if name not in request:
                raise invalid(wording.FIELD_REQUIRED.format(path=f"{path}.{name}"))
            if not isinstance(request[name], kind):
                raise invalid(wording.WRONG_TYPE.format(path=f"{path}.{name}",
                                                        expected=expected))
        custom_id = request["custom_id"]
        if not _CUSTOM_ID.fullmatch(custom_id):
            raise invalid(wording.CUSTOM_ID_PATTERN.format(path=f"{path}.custom_id"))
        if custom_id in seen:
            raise invalid(wording.CUSTOM_ID_DUPLICATE.format(i=i, id=custom_id))
        seen.add(custom_id)
    return requests


def runner(sim: Simulator) -> Runner:
    """How the simulator runs one batch request: as ``messages.create`` started at ``start``,
    without moving the clock, billed at the batch tier; an API error is an errored result."""
    def run(params: Any, start: float, headers: dict[str, str]) -> tuple[dict[str, Any], float]:
        try:
            req = parse(params, headers)
            refuse(params, req.max_tokens)
            message = sim.create(req, at=start)
        except APIError as error:
            return {"type": "errored", "error": error.body(None)}, 0.0
        message["usage"]["service_tier"] = "batch"
        took = sim.latency.duration(message["usage"]["output_tokens"])
        return {"type": "succeeded", "message": message}, took

    return run


def refuse(params: dict[str, Any], max_tokens: int | None) -> None:
    """The Messages parameters a batch request may not use (docs: what can be batched)."""
    if params.get("stream"):
        raise invalid(wording.BATCH_STREAM)
    if params.get("speed") is not None:
        raise invalid(wording.EXTRA_INPUT.format(field="speed"))
    if max_tokens == 0:  # cache pre-warming: the entry would expire before its follow-up
        raise invalid(wording.RANGE_MIN.format(path="max_tokens", limit=1))
