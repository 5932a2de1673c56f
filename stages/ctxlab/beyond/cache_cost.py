"""Compact now, or after N more turns? A dollar model of the prompt cache (guide §6.5–§6.7).

Compacting rewrites the cached prefix (§6.5): the next request writes the kept history at the
cache-write price instead of reading the whole history at the cache-read price. It pays back
through the turns that follow, each reading a smaller prefix. Whether it pays back depends on
the prices (API notes §1.7: write 1.25×, read 0.1× of input), on how many turns are left, and
on the cache state: once the cache has expired, the prefix is written again anyway, and the
destructive step costs nothing extra (§6.7, the 60-minute argument).

The model follows stage 5's cache zones: a static zone (tools + system, 1-hour TTL) and the
history (one moving 5-minute breakpoint on the newest block). Every request writes its whole
new part at its breakpoint, so nothing is billed as uncached input except a summary request's
own tail. A compaction happens at most once in the horizon; ``kept_tokens`` is the history
right after it (summary, re-attached files and kept tail, or the history with old results
cleared). ``summary_output_tokens`` = 0 models local clearing (no model call).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import models

MESSAGE_TTL_S = 300.0
STATIC_TTL_S = 3600.0


@dataclass(frozen=True)
class Situation:
    """The current prefix, the cache state and what the next turns look like."""

    static_tokens: int
    history_tokens: int  # the history of the last request: what the message entry holds
    growth_per_turn: int
    output_per_turn: int
    kept_tokens: int
    summary_output_tokens: int = 0
    summary_prompt_tokens: int = 0
    horizon: int = 20
    idle_s: float = 0.0  # idle time before the next request ("now")
    turn_s: float = 10.0  # idle time before each later request
    pauses: tuple[tuple[int, float], ...] = ()  # (turn, extra idle seconds before it)
    limit_tokens: int | None = None  # no request may be larger (window minus reserves)
    message_ttl_s: float = MESSAGE_TTL_S
    static_ttl_s: float = STATIC_TTL_S


@dataclass(frozen=True)
class Bill:
    """One request's input partition and its dollars (R19, R26)."""

    read: int = 0
    write_5m: int = 0
    write_1h: int = 0
    uncached: int = 0
    output: int = 0

    def usd(self, spec: models.ModelSpec) -> float:
        return models.cost_usd(spec, input_tokens=self.uncached, output_tokens=self.output,
                               cache_read=self.read, write_5m=self.write_5m,
                               write_1h=self.write_1h)


def next_request(static: int, cached_history: int, idle_s: float, total: int, *,
                 same_prefix: bool, output: int = 0, message_ttl_s: float = MESSAGE_TTL_S,
                 static_ttl_s: float = STATIC_TTL_S, uncached: int = 0) -> Bill:
    """The bill of one request of ``total`` tokens, ``idle_s`` after the last one; the last
    ``uncached`` of them (the volatile context after the newest breakpoint) are never cached.

    ``same_prefix``: the request extends the last one (nothing before its end changed), so the
    message entry hits while it lives; after a compaction only the static zone is counted as a
    hit (an older entry inside the 20-block lookback may add a little, R18).
    """
    if same_prefix and idle_s < message_ttl_s:
        read = static + cached_history
    else:
        read = static if idle_s < static_ttl_s else 0
    write_1h = static if read == 0 else 0
    return Bill(read=read, write_5m=total - read - write_1h - uncached, write_1h=write_1h,
                uncached=uncached, output=output)


def timeline(sit: Situation, spec: models.ModelSpec, at: int | None) -> list[dict[str, Any]]:
    """Turn by turn, the bill when compacting before turn ``at`` (None: never)."""
    pauses = dict(sit.pauses)
    history = sit.history_tokens
    rows = []
    for turn in range(sit.horizon):
        idle = (sit.idle_s if turn == 0 else sit.turn_s) + pauses.get(turn, 0.0)
        summary = Bill()
        compact = turn == at
        if compact and sit.summary_output_tokens:  # the summarizer reads the old prefix
            warm = next_request(sit.static_tokens, history, idle, 0, same_prefix=True,
                                message_ttl_s=sit.message_ttl_s,
                                static_ttl_s=sit.static_ttl_s)
            asked = sit.static_tokens + history + sit.growth_per_turn + sit.summary_prompt_tokens
            summary = Bill(read=warm.read, write_1h=warm.write_1h,
                           uncached=asked - warm.read - warm.write_1h,
                           output=sit.summary_output_tokens)
            idle = 0.0  # the static zone was just read or written
        new = sit.kept_tokens if compact else history + sit.growth_per_turn
        bill = next_request(sit.static_tokens, history, idle, sit.static_tokens + new,
                            same_prefix=not compact, output=sit.output_per_turn,
                            message_ttl_s=sit.message_ttl_s, static_ttl_s=sit.static_ttl_s)
        fits = sit.limit_tokens is None or sit.static_tokens + new <= sit.limit_tokens
        rows.append({"turn": turn, "idle_s": idle, "compacted": compact,
                     "request_tokens": sit.static_tokens + new, "fits": fits,
                     "usd": bill.usd(spec) + summary.usd(spec),
                     "summary_usd": summary.usd(spec)})
        history = new
    return rows


@dataclass
class Plan:
    """Total dollars over the horizon for each choice of when to compact."""

    model: str
    totals: list[float | None]  # totals[j]: compact before turn j; None when infeasible
    never: float | None
    timelines: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def best(self) -> int | None:
        """The cheapest turn to compact at; None when never compacting is cheapest."""
        options = [(t, j) for j, t in enumerate(self.totals) if t is not None]
        if self.never is not None:
            options.append((self.never, None))  # type: ignore[arg-type]
        return min(options, key=lambda o: (o[0], o[1] is None))[1] if options else None

    def to_dict(self) -> dict[str, Any]:
        best = self.best
        now = self.totals[0] if self.totals else None
        chosen = self.never if best is None else self.totals[best]
        return {"model": self.model, "totals_usd": self.totals, "never_usd": self.never,
                "best_turn": best, "now_usd": now, "best_usd": chosen,
                "now_minus_best_usd": None if now is None or chosen is None else now - chosen}


def plan(sit: Situation, model: str) -> Plan:
    """Cost of compacting before each turn of the horizon, and of never compacting."""
    spec = models.get(model)

    def total(at: int | None) -> tuple[float | None, list[dict[str, Any]]]:
        rows = timeline(sit, spec, at)
        return (sum(r["usd"] for r in rows) if all(r["fits"] for r in rows) else None), rows

    totals, timelines = [], {}
    for j in range(sit.horizon):
        cost, rows = total(j)
        totals.append(cost)
        timelines[str(j)] = rows
    never, timelines["never"] = total(None)
    return Plan(spec.id, totals, never, timelines)


def compact_now(sit: Situation, model: str) -> bool:
    """The decision a context layer can take from the model: compact on this turn only when
    no later turn, and not never, is cheaper (a hard limit is respected through
    ``limit_tokens``)."""
    return plan(sit, model).best == 0


def miss_vs_hit(prefix_tokens: int, model: str) -> dict[str, float]:
    """§6.5's comparison: reading a cached prefix vs writing it again, in dollars."""
    spec = models.get(model)
    read = Bill(read=prefix_tokens).usd(spec)
    write = Bill(write_5m=prefix_tokens).usd(spec)
    full = Bill(uncached=prefix_tokens).usd(spec)
    return {"prefix_tokens": prefix_tokens, "read_usd": read, "rewrite_usd": write,
            "uncached_usd": full, "rewrite_over_read": write / read}
