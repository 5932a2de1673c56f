"""The prompt cache, call by call (guide §6, §12.6).

Each call's input splits into three parts that never overlap: read from the cache (a tenth of
the input price), written to it (1.25× for a 5-minute entry, 2× for 1 hour) and uncached.
``plot_cache`` stacks them per call and marks every cache break with its cause, as
``ctxlab.telemetry.cache_breaks`` attributes it (§12.6). ``prefix_reuse`` answers another
question, for a stage that sets no breakpoint at all: how much of each request repeats the
previous one byte for byte — the most any cache could have read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from matplotlib.figure import Figure

from ctxlab.runner import RunResult
from ctxlab.sim import ModelView
from ctxlab.telemetry import TurnRecord, cache_breaks
from ctxlab.tokens import count_messages

from .figure import add_caveat, new_figure, token_axis, turn_axis

BREAK_COLORS = {"compaction (expected)": "tab:purple", "ttl expiry (idle)": "tab:gray",
                "prefix changed (our bug)": "red"}


@dataclass
class CacheSeries:
    """Per model call (agent and summary calls, in order): the three parts of its input."""

    calls: list[int] = field(default_factory=list)  # 1, 2, … in call order
    turns: list[int] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    read: list[int] = field(default_factory=list)
    write: list[int] = field(default_factory=list)
    uncached: list[int] = field(default_factory=list)
    breaks: list[dict[str, Any]] = field(default_factory=list)  # cache_breaks(), plus "call"

    @property
    def read_share(self) -> float:
        total = sum(self.read) + sum(self.write) + sum(self.uncached)
        return sum(self.read) / total if total else 0.0


def _records(run: RunResult | Sequence[TurnRecord]) -> list[TurnRecord]:
    return list(run.records if isinstance(run, RunResult) else run)


def cache_series(run: RunResult | Sequence[TurnRecord]) -> CacheSeries:
    """The cache parts of every accepted call of ``run``, and its attributed cache breaks."""
    records = [r for r in _records(run) if r.error is None]
    s = CacheSeries()
    for n, r in enumerate(records, 1):
        s.calls.append(n)
        s.turns.append(r.turn)
        s.kinds.append(r.kind)
        s.read.append(r.cache_read_tokens)
        s.write.append(r.cache_write_tokens)
        s.uncached.append(r.input_tokens)
    call_of = {t: c for c, t, k in zip(s.calls, s.turns, s.kinds, strict=True) if k == "agent"}
    s.breaks = [dict(b, call=call_of[b["turn"]]) for b in cache_breaks(records)]
    return s


def plot_cache(run: RunResult | Sequence[TurnRecord], *, title: str | None = None) -> Figure:
    """Stacked bars per call: cache read, cache write, uncached; cache breaks marked."""
    s = cache_series(run)
    fig = new_figure(10, 4.3)
    ax = fig.add_subplot()
    hatch = ["//" if k == "summary" else "" for k in s.kinds]
    below = [r + w for r, w in zip(s.read, s.write, strict=True)]
    ax.bar(s.calls, s.read, color="tab:green", label="cache read (0.1× price)")
    ax.bar(s.calls, s.write, bottom=s.read, color="tab:orange", label="cache write (1.25×–2×)")
    ax.bar(s.calls, s.uncached, bottom=below, color="lightgray", hatch=hatch,
           label="uncached input (1×)")
    tops = [b + u for b, u in zip(below, s.uncached, strict=True)]
    shown: set[str] = set()
    for b in s.breaks:
        ax.plot([b["call"]], [tops[b["call"] - 1] * 1.04], "v", ms=7,
                color=BREAK_COLORS.get(b["cause"], "black"),
                label=f"cache break: {b['cause']}" if b["cause"] not in shown else None)
        shown.add(b["cause"])
    if "summary" in s.kinds:
        ax.bar([], [], color="lightgray", hatch="//", label="summarizer call (hatched)")
    ax.set_xlabel("model call (agent and summarizer calls, in order)")
    turn_axis(ax)
    ax.set_ylabel("input tokens")
    token_axis(ax)
    ax.set_ylim(0, max(tops, default=1) * 1.15)
    ax.set_title(title or f"Prompt cache per call: read share {s.read_share:.0%}, "
                 f"{len(s.breaks)} cache break(s)")
    ax.legend(loc="upper left", fontsize=7)
    ax.grid(alpha=0.3, axis="y")
    add_caveat(fig, "a break = a read below half of what the previous call cached (§12.6).")
    return fig


@dataclass(frozen=True)
class Reuse:
    """How much of one agent request repeats the previous one, message by message."""

    request: int  # 1, 2, … over the agent requests
    messages: int
    shared_messages: int
    tokens: int
    shared_tokens: int


def _key(message: dict[str, Any]) -> str:
    """A message as bytes, without its cache breakpoint (a marker, not content)."""
    content = message["content"]
    if isinstance(content, list):
        content = [{k: v for k, v in b.items() if k != "cache_control"} for b in content]
    return json.dumps({**message, "content": content}, sort_keys=True, ensure_ascii=False)


def prefix_reuse(views: Sequence[ModelView]) -> list[Reuse]:
    """Per agent request (summarizer requests skipped): the leading messages identical to
    the previous agent request's, in messages and reference tokens."""
    agent = [v for v in views if v.tool_choice.get("type") != "none"]
    out: list[Reuse] = []
    previous: list[str] = []
    for n, view in enumerate(agent, 1):
        keys = [_key(m) for m in view.messages]
        shared = 0
        while shared < min(len(keys), len(previous)) and keys[shared] == previous[shared]:
            shared += 1
        out.append(Reuse(n, len(keys), shared, count_messages(view.messages),
                         count_messages(view.messages[:shared])))
        previous = keys
    return out


def plot_prefix_reuse(reuse: Sequence[Reuse], *, title: str | None = None) -> Figure:
    """Per agent request: its size, and the part that repeats the previous request exactly
    (the most a prompt cache could have read)."""
    fig = new_figure(10, 4)
    ax = fig.add_subplot()
    requests = [r.request for r in reuse]
    ax.plot(requests, [r.tokens for r in reuse], color="tab:gray", lw=1,
            label="request size")
    ax.fill_between(requests, [r.shared_tokens for r in reuse], color="tab:green", alpha=0.5,
                    step=None, label="identical to the previous request (cacheable at best)")
    lost = [r for r in reuse[1:] if r.shared_messages == 0]
    if lost:
        ax.plot([r.request for r in lost], [r.tokens for r in lost], "X", color="red", ms=9,
                label="nothing in common with the previous request")
    ax.set_xlabel("agent request")
    turn_axis(ax)
    ax.set_ylabel("input tokens (messages only)")
    token_axis(ax)
    total = sum(r.tokens for r in reuse) or 1
    share = sum(r.shared_tokens for r in reuse) / total
    ax.set_title(title or f"Prefix reuse: {share:.0%} of the message tokens repeat the previous "
                 f"request; {len(lost)} request(s) share nothing")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    add_caveat(fig, "system prompt and tools are not counted here.")
    return fig
