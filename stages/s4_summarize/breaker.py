# Generated from solutions/s4_summarize/breaker.py — your exercise: edit it.
# `ctxlab workbook reset 4` regenerates it (your version is backed up first).
"""Exercise 4.4 — the circuit breaker, and a fallback that calls no model (guide §9.4, §8.5,
ch8.4, §14 stage 4 "坑 4").

A summary request fails now and then. Some failures pass: a rate limit, an overloaded server, a
timeout — wait a moment and try again (the SDK already retries twice; this adds a short backoff
of its own). Others do not: a history still too long after every PTL retry, an empty answer, a
tool call where a summary was asked for. Retrying those only repeats them, and a system that
does it turn after turn burns calls by the thousand (§9.4).

So failed compactions are counted, and three in a row open the breaker for the rest of the
session. From then on the layer truncates locally, at round boundaries, without calling any
model: the last rung of a fallback chain must not depend on the resource it stands in for
(§8.5). An open breaker caps the damage; it does not repair anything (§9.4).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import anthropic

from .errors import CompactionFailed

T = TypeVar("T")

TRANSIENT = (anthropic.RateLimitError, anthropic.InternalServerError, anthropic.APIConnectionError)
"""429, 500/529 (``OverloadedError`` is an ``InternalServerError``), timeouts and lost
connections (``APITimeoutError`` is an ``APIConnectionError``): worth another try."""


@dataclass
class CircuitBreaker:
    """Consecutive failed compactions; ``threshold`` of them open it for good."""

    threshold: int = 3
    failures: int = 0

    @property
    def open(self) -> bool:
        """Whether compactions go straight to the fallback."""
        return self.failures >= self.threshold


def guarded(summarize: Callable[[], T], fallback: Callable[[], T],
            breaker: CircuitBreaker | None, *, retries: int = 2, base_delay: float = 0.05,
            sleep: Callable[[float], None] = time.sleep) -> T | None:
    """Compact with ``summarize()`` behind ``breaker``; None when this compaction failed.

    An open breaker: return ``fallback()`` and do not call ``summarize``. Otherwise call
    ``summarize``; after a ``TRANSIENT`` error ``sleep(base_delay × 2^k)`` (k = 0, 1, …) and
    call it again, at most ``retries`` more times; a structural failure (``CompactionFailed``
    or any other ``anthropic.APIError``) is not retried. A success resets the failure count
    and returns the result. A failure adds one; when that opens the breaker, return
    ``fallback()``, else None (the history stays as it is and the next turn tries again).
    ``breaker=None`` (no breaker) counts nothing and never falls back.
    """
    raise NotImplementedError("Exercise 4.4 — guarded(): see notebooks/04_summarize.ipynb")
