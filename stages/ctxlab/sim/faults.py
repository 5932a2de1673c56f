"""Injected faults for the reliability lessons (R38–R41, API notes §2.3–2.4).

A ``FaultPlan`` decides, request by request, whether the simulator answers normally or fails:
scheduled faults (the next N matching requests) and random ones (a seeded rate per kind);
``parse_spec`` reads the ``ctxlab serve --faults`` form. Kinds:

- ``rate_limit``: 429 ``rate_limit_error`` with a ``retry-after`` header in whole seconds (at
  least 1; the SDK sleeps exactly that long), worded and headed as the rate limiter's own
  refusal, its bucket empty until then;
- ``overloaded``: 529 ``overloaded_error``; ``server_error``: 500 ``api_error``;
- ``timeout``: the connection hangs (in-process: the transport raises a read timeout);
- ``midstream``: a streamed response that fails after the first block (HTTP 200, ``event: error``);
  on a non-streamed request it is answered as ``overloaded``;
- ``empty``: a 200 reply with no content (a summarizer that returns nothing, §9.4).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from . import wording
from .errors import APIError
from .ratelimit import Limits, RateLimiter
from .schema import Request

KINDS = ("rate_limit", "overloaded", "server_error", "timeout", "midstream", "empty")


@dataclass
class Fault:
    """``count`` failures of one kind for requests that ``when`` accepts (all when None)."""

    kind: str
    count: int = 1
    when: Callable[[Request], bool] | None = None
    retry_after: float = 1.0  # seconds; the header rounds it up to a whole second
    should_retry: bool | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; choose one of {', '.join(KINDS)}")


@dataclass
class FaultPlan:
    """Scheduled faults, consumed in order, plus an optional seeded random fault rate."""

    scheduled: list[Fault] = field(default_factory=list)
    rates: dict[str, float] = field(default_factory=dict)  # kind → probability per request
    seed: int = 0
    fired: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for kind, rate in self.rates.items():
            Fault(kind)  # checks the kind
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"fault rate for {kind} must be in [0, 1], got {rate:g}")
        if sum(self.rates.values()) > 1.0:
            raise ValueError("fault rates add up to more than 1")
        self._rng = random.Random(self.seed)

    def add(self, kind: str, count: int = 1, **options: object) -> FaultPlan:
        """Schedule ``count`` faults of ``kind``; returns the plan for chaining."""
        self.scheduled.append(Fault(kind, count, **options))  # type: ignore[arg-type]
        return self

    def next_fault(self, req: Request | None) -> Fault | None:
        """The fault for this request, if any (consumes one scheduled occurrence)."""
        for fault in self.scheduled:
            if fault.count > 0 and (fault.when is None or (req is not None and fault.when(req))):
                fault.count -= 1
                self.fired.append(fault.kind)
                return fault
        if self.rates:
            draw = self._rng.random()
            for kind, rate in self.rates.items():
                if draw < rate:
                    self.fired.append(kind)
                    return Fault(kind)
                draw -= rate
        return None


def parse_spec(spec: str, seed: int = 0) -> FaultPlan:
    """A plan from ``ctxlab serve --faults``: comma-separated ``KIND`` or ``KIND*N`` (the next
    N requests fail so, in order) and ``KIND@RATE`` (each request fails so with probability
    RATE, seeded). Example: ``rate_limit*2,overloaded@0.1``. ValueError names what is wrong."""
    plan = FaultPlan(seed=seed)
    rates: dict[str, float] = {}
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        kind, at, rate = item.partition("@")
        if at:
            try:
                rates[kind.strip()] = float(rate)
            except ValueError:
                raise ValueError(f"{item!r}: the rate after @ must be a number") from None
            continue
        kind, star, count = item.partition("*")
        if star and not count.strip().isdigit():
            raise ValueError(f"{item!r}: the count after * must be a whole number")
        plan.add(kind.strip(), int(count) if star else 1)
    return FaultPlan(plan.scheduled, rates, seed)


def as_error(fault: Fault, limiter: RateLimiter | None = None, now: float = 0.0) -> APIError:
    """The HTTP error for a status-code fault. An injected 429 is the limiter's own refusal of
    the input-token limit (the Start tier's when no limits are set), and it empties that bucket
    until ``retry_after`` has passed, so the headers and the next request agree with it."""
    headers: dict[str, str] = {}
    if fault.should_retry is not None:
        headers["x-should-retry"] = "true" if fault.should_retry else "false"
    if fault.kind == "rate_limit":
        buckets = limiter or RateLimiter(Limits())
        wait = max(1, math.ceil(fault.retry_after))  # the API's retry-after: whole seconds
        buckets.drain("input_tokens", now, wait)
        error = buckets.refusal("input_tokens", wait)
        error.headers.update(headers)
        return error
    if fault.kind == "server_error":
        return APIError(500, wording.INTERNAL, headers=headers)
    return APIError(529, wording.OVERLOADED, headers=headers)
