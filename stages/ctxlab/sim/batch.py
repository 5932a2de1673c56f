"""One Message Batch on the simulated clock (docs: batch-processing; Message Batches reference).

A batch's requests run in order on ``workers`` lanes, each request starting when a lane is
free, taking the simulator's latency for its output (an invalid request takes no time). A
request runs only once the simulated clock has reached its start, so synchronous requests and
batch work meet the prompt cache in time order (a batch request hits what the requests before
it wrote once their first token is out: best effort, as the docs say). ``processing_status``
is ``in_progress`` until the last request has finished, ``canceling`` from a cancel until the
requests already running have finished (the others are ``canceled``), then ``ended``; a
request whose turn comes 24 hours after creation or later is ``expired``. ``request_counts``
show every request as ``processing`` until the batch ends, then its result: they always add
up to the number of requests. How many lanes a batch gets is not documented (ours: 8).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

DAY_S = 86_400.0  # expires_at: 24 hours after creation
WORKERS = 8  # OURS: requests of one batch running at once
COUNTS = ("processing", "succeeded", "errored", "canceled", "expired")

# (params, start, the batch's headers) -> (the request's result, seconds it took)
Runner = Callable[[Any, float, dict[str, str]], tuple[dict[str, Any], float]]


@dataclass
class Item:
    """One request of a batch and, once it ran, its result."""

    custom_id: str
    params: Any
    result: dict[str, Any] | None = None
    finish: float = 0.0


@dataclass
class Batch:
    """A Message Batch: its requests, its lanes and its cancellation."""

    id: str
    created: float
    items: list[Item]
    headers: dict[str, str]
    workers: list[float] = field(default_factory=list)
    ran: int = 0  # requests run so far, in order
    cancel_at: float | None = None

    def __post_init__(self) -> None:
        self.workers = self.workers or [self.created] * WORKERS

    @property
    def expires(self) -> float:
        return self.created + DAY_S

    def advance(self, now: float, run: Runner) -> None:
        """Run every request whose start has come by ``now`` (never after a cancel or 24 h)."""
        while self.ran < len(self.items):
            start = min(self.workers)
            if start > now or self._stopped(start):
                return
            item = self.items[self.ran]
            item.result, took = run(item.params, start, self.headers)
            item.finish = start + took
            self.workers[self.workers.index(start)] = item.finish
            self.ran += 1

    def _stopped(self, start: float) -> bool:
        canceled = self.cancel_at is not None and start > self.cancel_at
        return canceled or start >= self.expires

    def ended_at(self) -> float | None:
        """When processing ends, once that is known."""
        last = max((i.finish for i in self.items[:self.ran]), default=self.created)
        if self.ran == len(self.items):
            return last
        if not self._stopped(min(self.workers)):
            return None
        return max(last, self.cancel_at if self.cancel_at is not None else self.expires)

    def status(self, now: float) -> str:
        end = self.ended_at()
        if end is not None and now >= end:
            return "ended"
        return "in_progress" if self.cancel_at is None else "canceling"

    def cancel(self, now: float) -> None:
        """Stop starting requests; those running finish (only while in progress)."""
        if self.status(now) == "in_progress":
            self.cancel_at = now

    def outcome(self, item: Item) -> dict[str, Any]:
        """A request's ``result``: what it gave, or why it never ran."""
        if item.result is not None:
            return item.result
        return {"type": "canceled" if self.cancel_at is not None else "expired"}

    def counts(self, now: float) -> dict[str, int]:
        tally = dict.fromkeys(COUNTS, 0)
        if self.status(now) != "ended":
            tally["processing"] = len(self.items)
            return tally
        for item in self.items:
            tally[self.outcome(item)["type"]] += 1
        return tally

    def view(self, now: float, stamp: Callable[[float], str], base_url: str) -> dict[str, Any]:
        """The ``MessageBatch`` object at ``now``."""
        ended = self.status(now) == "ended"
        end = self.ended_at()
        return {"id": self.id, "type": "message_batch", "processing_status": self.status(now),
                "request_counts": self.counts(now),
                "ended_at": stamp(end) if ended and end is not None else None,
                "created_at": stamp(self.created), "expires_at": stamp(self.expires),
                "archived_at": None,
                "cancel_initiated_at": None if self.cancel_at is None else stamp(self.cancel_at),
                "results_url": f"{base_url}/{self.id}/results" if ended else None}

    def results(self) -> bytes:
        """The results file: one JSON line per request, in the order they finished."""
        order = sorted(self.items, key=lambda i: (i.result is None, i.finish))
        lines = [json.dumps({"custom_id": i.custom_id, "result": self.outcome(i)},
                            ensure_ascii=False) for i in order]
        return ("\n".join(lines) + "\n").encode()
