"""The prompt-cache engine: breakpoints, lookback, TTLs and the usage partition (R4–R6, R16–R25).

Writes happen only at breakpoints; reads walk back at most 20 positions from each breakpoint;
a prefix shorter than the model's minimum neither reads nor writes; an entry lives ``ttl`` from
the start of the last request that wrote or read it, and becomes visible only once the writing
response has begun (API notes §1.4–1.8).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import wording
from .errors import invalid
from .render import Rendered
from .schema import Request

LOOKBACK = 20
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}


@dataclass
class Entry:
    tokens: int
    ttl: str
    expires_at: float
    available_at: float


@dataclass(frozen=True)
class CacheUsage:
    """The usage partition of one request (R19): read + 5m + 1h + uncached = total."""

    read: int
    write_5m: int
    write_1h: int
    uncached: int

    @property
    def creation(self) -> int:
        return self.write_5m + self.write_1h


class CacheStore:
    """Cache entries of one organisation, keyed by prefix hash (which includes the model)."""

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}

    def live(self, key: str, now: float) -> Entry | None:
        entry = self.entries.get(key)
        if entry is None or entry.available_at > now or entry.expires_at <= now:
            return None
        return entry

    def apply(self, rendered: Rendered, breakpoints: list[tuple[int, str]], minimum: int,
              now: float, first_token_s: float) -> CacheUsage:
        """Read and write for one request started at ``now``; returns its usage partition."""
        pos = rendered.positions
        eligible = [(k, ttl) for k, ttl in breakpoints if pos[k].cumulative >= minimum]  # R17
        hit = 0
        for k, _ in eligible:  # R18: longest hit over every breakpoint's 20-position window
            for back in range(k, max(-1, k - LOOKBACK), -1):
                entry = self.live(pos[back].key, now)
                if entry is not None:
                    entry.expires_at = now + TTL_SECONDS[entry.ttl]  # R21: refresh on hit
                    hit = max(hit, pos[back].cumulative)
                    break
        for k, ttl in eligible:  # R17: one entry per breakpoint
            entry = self.live(pos[k].key, now)
            if entry is None:
                self.entries[pos[k].key] = Entry(pos[k].cumulative, ttl,
                                                 now + TTL_SECONDS[ttl], now + first_token_s)
        last = max((pos[k].cumulative for k, _ in eligible), default=0)
        one_hour = max((pos[k].cumulative for k, ttl in eligible
                        if ttl == "1h" and pos[k].cumulative > hit), default=hit)
        creation = max(0, last - hit)
        write_1h = max(0, one_hour - hit)
        return CacheUsage(read=hit, write_5m=creation - write_1h, write_1h=write_1h,
                          uncached=rendered.total - max(hit, last))


def breakpoints(req: Request, rendered: Rendered) -> list[tuple[int, str]]:
    """The request's breakpoints as (position, ttl), after R4, R5, R6 and R24."""
    pos = rendered.positions
    marks = [(k, p.cache_control.get("ttl") or "5m") for k, p in enumerate(pos)
             if p.cache_control is not None]
    for k, _ in marks:
        if not pos[k].cacheable and pos[k].zone == "system":  # R6 for system blocks
            raise invalid(wording.EMPTY_TEXT_CACHED.format(path=pos[k].path))
    if req.cache_control is not None:  # R24: automatic caching
        auto_ttl = req.cache_control.get("ttl") or "5m"
        target = next((k for k in range(len(pos) - 1, -1, -1) if pos[k].cacheable), None)
        explicit = dict(marks)
        if target is not None and target in explicit:
            if explicit[target] != auto_ttl:
                raise invalid(wording.AUTO_CACHE_TTL_CONFLICT)
        elif target is not None:  # takes one of the 4 slots
            marks = sorted([*marks, (target, auto_ttl)])
    for k, ttl in marks:
        if ttl not in TTL_SECONDS:
            raise invalid(wording.WRONG_TYPE.format(path=f"{pos[k].path}.cache_control.ttl",
                                                    expected="'5m' or '1h'"))
    if len(marks) > 4:  # R4
        raise invalid(wording.TOO_MANY_BREAKPOINTS.format(n=len(marks)))
    seen_5m = False
    for k, ttl in marks:  # R5: tools → system → messages order
        if ttl == "1h" and seen_5m:
            raise invalid(wording.TTL_ORDER.format(path=pos[k].path))
        seen_5m = seen_5m or ttl == "5m"
    return marks
