"""A simulated clock: prompt-cache TTLs (R21), idle gaps, rate-limit buckets and Message Batches
run on it, never on wall time — except under ``ctxlab serve``, whose ``WallClock`` also moves
with the wall clock, so a client that waits (``retry-after``, a batch poll) sees time pass."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..dynamic import EPOCH  # where second 0 lies in-process (the dynamic context's clock too)


@dataclass
class SimClock:
    """Seconds since the start of the simulation; moves only when told to."""

    now: float = 0.0
    epoch: float = EPOCH  # the Unix time of second 0, for RFC 3339 stamps

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` (e.g. a user idle past the 5-minute TTL, §6.7)."""
        if seconds < 0:
            raise ValueError("the simulated clock cannot go backwards")
        self.now += seconds
        return self.now

    def stamp(self, at: float | None = None) -> str:
        """RFC 3339 time of simulated second ``at`` (default now), as the API writes times."""
        moment = datetime.fromtimestamp(self.epoch + (self.now if at is None else at), UTC)
        return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


class WallClock(SimClock):
    """A simulated clock that also runs with the wall clock (``ctxlab serve``): second 0 is
    the moment it was made, and simulated latency still adds on top."""

    def __init__(self, source: Callable[[], float] = time.monotonic) -> None:
        self._source = source
        self._start = source()
        self._offset = 0.0
        super().__init__(0.0, time.time())

    @property  # type: ignore[override]
    def now(self) -> float:
        return self._offset + (self._source() - self._start)

    @now.setter
    def now(self, value: float) -> None:
        self._offset = value - (self._source() - self._start)


@dataclass(frozen=True)
class Latency:
    """How long a simulated call takes: time to first token, then a steady output rate."""

    first_token_s: float = 0.6
    tokens_per_s: float = 80.0

    def duration(self, output_tokens: int) -> float:
        return self.first_token_s + output_tokens / self.tokens_per_s
