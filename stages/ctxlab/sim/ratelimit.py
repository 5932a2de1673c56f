"""Rate limits as the API applies and reports them (docs: rate-limits; API notes §1.8, §2.2 f1).

Token buckets on the simulated clock: each limit is a bucket as large as the per-minute limit,
refilled continuously at limit/60 per second. A request is admitted while its requests bucket
holds one request and the token buckets are not in debt; once it is answered, its input
(``input_tokens + cache_creation_input_tokens`` — cache reads do not count) and its output are
taken from the token buckets. A refused request gets a 429 ``rate_limit_error`` naming the limit,
with ``retry-after``: the whole seconds until the bucket admits again. Every response carries
the ``anthropic-ratelimit-*`` headers: limit, remaining (tokens rounded to the nearest thousand)
and reset (when the bucket is full again, RFC 3339). ``tokens-*`` is input and output together.
The Message Batches endpoints have their own requests-per-minute bucket; batch work takes
nothing from the Messages API's buckets. The API keeps one set of buckets per model class; the
simulator keeps one for all models.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from . import wording
from .errors import APIError

ORG = "org-simulated"
_NAMES = {"rpm": "requests", "itpm": "input_tokens", "otpm": "output_tokens",
          "batch-rpm": "batch_requests"}


@dataclass(frozen=True)
class Limits:
    """Per-minute limits; the defaults are the docs' Start tier for Claude 4.x and 5 models
    (1,000 RPM, 2,000,000 ITPM, 400,000 OTPM; Message Batches: 1,000 RPM)."""

    requests: int = 1_000
    input_tokens: int = 2_000_000
    output_tokens: int = 400_000
    batch_requests: int = 1_000

    @classmethod
    def parse(cls, spec: str) -> Limits:
        """``rpm=50,itpm=40000,otpm=8000,batch-rpm=50`` (any subset; the rest default).
        ValueError names what is wrong."""
        values: dict[str, int] = {}
        for item in (part.strip() for part in spec.split(",")):
            if not item:
                continue
            key, _, raw = item.partition("=")
            if key.strip() not in _NAMES:
                raise ValueError(f"{item!r}: name one of {', '.join(_NAMES)} (e.g. rpm=50)")
            if not raw.strip().isdigit() or int(raw) < 1:
                raise ValueError(f"{item!r}: the limit must be a whole number of at least 1")
            values[_NAMES[key.strip()]] = int(raw)
        return cls(**values)


class Bucket:
    """One token bucket: ``capacity`` per minute, refilled continuously."""

    def __init__(self, capacity: int, now: float) -> None:
        self.capacity = capacity
        self.level = float(capacity)
        self.at = now

    def refill(self, now: float) -> float:
        """The level at ``now`` (the clock never goes back)."""
        if now > self.at:
            self.level = min(self.capacity, self.level + (now - self.at) * self.capacity / 60)
            self.at = now
        return self.level

    def wait(self, now: float) -> float:
        """Seconds until the bucket holds one unit again (0 when it does, to a microsecond:
        refills in steps must not leave a rounding error's wait)."""
        wait = (1 - self.refill(now)) * 60 / self.capacity
        return wait if wait > 1e-6 else 0.0

    def full_at(self, now: float) -> float:
        """When the bucket is full again."""
        return now + (self.capacity - self.refill(now)) * 60 / self.capacity


_UNITS = {"requests": "requests", "batch_requests": "requests",
          "input_tokens": "input tokens", "output_tokens": "output tokens"}


class RateLimiter:
    """The buckets of one organisation, with admission, charging and the response headers."""

    def __init__(self, limits: Limits, now: float = 0.0) -> None:
        self.limits = limits
        self.buckets = {f.name: Bucket(getattr(limits, f.name), now) for f in fields(limits)}

    def admit(self, family: str, now: float) -> None:
        """Take one request from ``family``'s bucket ("messages" or "batches"), or raise 429."""
        requests = "batch_requests" if family == "batches" else "requests"
        names = [requests] + (["input_tokens", "output_tokens"] if family == "messages" else [])
        for name in names:
            wait = self.buckets[name].wait(now)
            if wait > 0:
                raise self.refusal(name, math.ceil(wait))
        self.buckets[requests].level -= 1

    def charge(self, usage: Mapping[str, Any], now: float) -> None:
        """Take an answered message's input (uncached and written) and output tokens."""
        taken = {"input_tokens": int(usage.get("input_tokens") or 0)
                 + int(usage.get("cache_creation_input_tokens") or 0),
                 "output_tokens": int(usage.get("output_tokens") or 0)}
        for name, amount in taken.items():
            self.buckets[name].refill(now)
            self.buckets[name].level -= amount

    def drain(self, name: str, now: float, retry_after: float) -> None:
        """Empty a bucket so that it admits again exactly ``retry_after`` seconds from now
        (an injected 429 then reads as the limiter would have refused)."""
        bucket = self.buckets[name]
        bucket.refill(now)
        bucket.level = min(bucket.level, 1 - retry_after * bucket.capacity / 60)

    def refusal(self, name: str, retry_after: int) -> APIError:
        """The 429 for the bucket ``name``, waiting ``retry_after`` whole seconds."""
        message = wording.RATE_LIMITED.format(org=ORG, limit=self.buckets[name].capacity,
                                              unit=_UNITS[name])
        return APIError(429, message, headers={"retry-after": str(retry_after)})

    def headers(self, family: str, now: float, stamp: Callable[[float], str]) -> dict[str, str]:
        """The ``anthropic-ratelimit-*`` headers for a response at ``now``."""
        requests = self.buckets["batch_requests" if family == "batches" else "requests"]
        tokens_in, tokens_out = self.buckets["input_tokens"], self.buckets["output_tokens"]
        out = _family("requests", requests.capacity, math.floor(max(requests.refill(now), 0)),
                      stamp(requests.full_at(now)))
        for name, bucket in (("input-tokens", tokens_in), ("output-tokens", tokens_out)):
            out |= _family(name, bucket.capacity, _thousands(bucket.refill(now)),
                           stamp(bucket.full_at(now)))
        out |= _family("tokens", tokens_in.capacity + tokens_out.capacity,
                       _thousands(tokens_in.refill(now) + tokens_out.refill(now)),
                       stamp(max(tokens_in.full_at(now), tokens_out.full_at(now))))
        return out


def _thousands(level: float) -> int:
    """Remaining tokens as the headers give them: rounded to the nearest thousand."""
    return int(max(level, 0) / 1000 + 0.5) * 1000


def _family(name: str, limit: int, remaining: int, reset: str) -> dict[str, str]:
    prefix = f"anthropic-ratelimit-{name}"
    return {f"{prefix}-limit": str(limit), f"{prefix}-remaining": str(remaining),
            f"{prefix}-reset": reset}
