"""Injected faults for the reliability lessons (R38–R41, API notes §2.3–2.4).

A ``FaultPlan`` decides, request by request, whether the simulator answers normally or fails:
scheduled faults (the next N matching requests) and random ones (seeded). Kinds:

- ``rate_limit``: 429 ``rate_limit_error`` with a ``retry-after`` header (the SDK sleeps exactly
  that long, so keep it small);
- ``overloaded``: 529 ``overloaded_error``; ``server_error``: 500 ``api_error``;
- ``timeout``: the connection hangs (in-process: the transport raises a read timeout);
- ``midstream``: a streamed response that fails after the first block (HTTP 200, ``event: error``);
  on a non-streamed request it is answered as ``overloaded``;
- ``empty``: a 200 reply with no content (a summarizer that returns nothing, §9.4).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from . import wording
from .errors import APIError
from .schema import Request

KINDS = ("rate_limit", "overloaded", "server_error", "timeout", "midstream", "empty")


@dataclass
class Fault:
    """``count`` failures of one kind for requests that ``when`` accepts (all when None)."""

    kind: str
    count: int = 1
    when: Callable[[Request], bool] | None = None
    retry_after: float = 0.01
    should_retry: bool | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; choose one of {', '.join(KINDS)}")


@dataclass
class FaultPlan:
    """Scheduled faults, consumed in order, plus an optional seeded random fault rate."""

    scheduled: list[Fault] = field(default_factory=list)
    random_kind: str | None = None
    random_rate: float = 0.0
    seed: int = 0
    fired: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
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
        if self.random_kind and self._rng.random() < self.random_rate:
            self.fired.append(self.random_kind)
            return Fault(self.random_kind)
        return None


def as_error(fault: Fault) -> APIError:
    """The HTTP error for a status-code fault."""
    headers: dict[str, str] = {}
    if fault.should_retry is not None:
        headers["x-should-retry"] = "true" if fault.should_retry else "false"
    if fault.kind == "rate_limit":
        headers["retry-after"] = f"{fault.retry_after:g}"
        message = wording.RATE_LIMITED.format(org="org-simulated", limit=50_000)
        return APIError(429, message, headers=headers)
    if fault.kind == "server_error":
        return APIError(500, wording.INTERNAL, headers=headers)
    return APIError(529, wording.OVERLOADED, headers=headers)
