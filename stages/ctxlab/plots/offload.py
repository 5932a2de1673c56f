"""What stage 3 moved to disk, and how the agent got it back (guide §3.2, §7.4, §14 stage 3).

The workspace of a run is deleted when the run ends, so the offloaded files are rebuilt from
what the run kept: each result that was replaced by a preview still names its own file
(``.task_outputs/tool-results/<tool_use_id>.txt``), and each offload event in the records says
how long the original was and how many tokens the swap freed. A *recovery read* is a
``read_file`` of one of those files: the pointer was followed, nothing was run again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ctxlab.runner import RunResult
from ctxlab.telemetry import input_hash

from .figure import COLORS, add_caveat, new_figure, turn_axis
from .thrash import thrash_series

POINTER = re.compile(r"\.task_outputs/tool-results/(?P<id>[A-Za-z0-9_-]+)\.txt")
CHARACTERS = re.compile(r"([\d,]+) characters")

Messages = list[dict[str, Any]]


@dataclass(frozen=True)
class Offloaded:
    """One result that went to disk: which call made it, how big it was, what stayed."""

    turn: int  # the request that first carried the preview
    tool_use_id: str
    tool: str
    input: dict[str, Any]
    path: str
    chars: int | None  # length of the original (None when the event does not say)
    preview_chars: int
    tokens_freed: int

    @property
    def call(self) -> str:
        """The call in a few words: ``run_command cat logs/shard-02.log``."""
        args = " ".join(str(v) for v in self.input.values()) if self.input else ""
        return f"{self.tool} {args}".strip()


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content", "")
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
    return str(content)


def tool_uses(messages: Messages) -> dict[str, dict[str, Any]]:
    """Every ``tool_use`` block of ``messages`` by id."""
    return {b["id"]: b for m in messages if m["role"] == "assistant" for b in _blocks(m)
            if b.get("type") == "tool_use"}


def offloaded(run: RunResult) -> list[Offloaded]:
    """The results of ``run`` that went to disk, in the order they were offloaded.

    Pairs each result that points at its own file with the offload events of the records, in
    order; a history that a later layer rewrote (snipped, summarized) no longer holds every
    preview, and is refused.
    """
    uses = tool_uses(run.messages)
    previews = []
    for message in run.messages:
        if message["role"] != "user":
            continue
        for block in _blocks(message):
            if block.get("type") != "tool_result":
                continue
            text = _result_text(block)
            pointer = POINTER.search(text)
            if pointer and pointer.group("id") == block["tool_use_id"]:
                previews.append((block["tool_use_id"], pointer.group(0), len(text)))
    events = [(r.turn, e) for r in run.records for e in r.compactions if e["layer"] == "offload"]
    if len(events) != len(previews):
        raise ValueError(f"{len(events)} offload events but {len(previews)} previews in the "
                         "final history: a later layer rewrote it")
    found = []
    for (turn, event), (tool_use_id, path, preview) in zip(events, previews, strict=True):
        size = CHARACTERS.search(event["trigger"])
        use = uses.get(tool_use_id, {})
        found.append(Offloaded(turn, tool_use_id, use.get("name", "?"), use.get("input", {}),
                               path, int(size.group(1).replace(",", "")) if size else None,
                               preview, event["tokens_freed"]))
    return found


def recovery_reads(run: RunResult) -> list[tuple[int, str]]:
    """(turn, path) of every ``read_file`` of an offloaded result: the pointer followed."""
    calls = [(r.turn, c["input_hash"]) for r in run.records if r.kind == "agent"
             for c in r.tool_calls if c["name"] == "read_file"]  # in order, each used once
    reads = []
    for use in tool_uses(run.messages).values():
        path = (use.get("input") or {}).get("path", "")
        if use["name"] != "read_file" or not POINTER.search(str(path)):
            continue
        fingerprint = input_hash(use["input"])
        at = next((k for k, (_, h) in enumerate(calls) if h == fingerprint), None)
        reads.append((calls.pop(at)[0] if at is not None else 0, path))
    return sorted(reads)


def plot_offloads(run: RunResult, *, title: str | None = None) -> Figure:
    """One bar per offloaded result: its full length against the preview left in context."""
    items = offloaded(run)
    back = {path: turn for turn, path in reversed(recovery_reads(run))}  # the first read
    fig = new_figure(9, 0.38 * len(items) + 1.8)
    ax = fig.add_subplot()
    labels = [f"{o.call[:38]} (turn {o.turn})" for o in items]
    full = [o.chars or 0 for o in items]
    ax.barh(labels, full, color="lightsteelblue", label="full output, now on disk")
    ax.barh(labels, [o.preview_chars for o in items], color="tab:blue",
            label="preview kept in context (head + tail + pointer)")
    for n, o in enumerate(items):
        note = f" -{o.tokens_freed:,} tokens"
        if o.path in back:
            note += f"; read back at turn {back[o.path]}"
        ax.annotate(note, (full[n], n), va="center", fontsize=8,
                    color="tab:green" if o.path in back else "black")
    ax.invert_yaxis()
    ax.set_xlabel("characters")
    ax.set_xlim(0, max(full, default=1) * 1.75)
    on_disk = sum(full)
    kept = sum(o.preview_chars for o in items)
    ax.set_title(title or f"{len(items)} results offloaded: {on_disk:,} characters to disk, "
                 f"{kept:,} kept in context", fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, fontsize=8)
    add_caveat(fig, "tokens freed = the original's tokens minus the preview's.")
    return fig


def plot_refetch(runs: Mapping[str, RunResult], *, title: str | None = None) -> Figure:
    """Side by side, per run: new calls, recovery reads and repeated calls over the turns."""
    fig = new_figure(11, 4.2)
    axes = fig.subplots(1, len(runs), sharey=True, squeeze=False)[0]
    top = 1
    for ax, (label, run) in zip(axes, runs.items(), strict=True):
        s = thrash_series(run)
        reads = recovery_reads(run)
        back = [sum(t == turn for t, _ in reads) for turn in s.turns]
        fresh = [n - b for n, b in zip(s.new, back, strict=True)]
        ax.bar(s.turns, fresh, color="tab:green", label="new call")
        ax.bar(s.turns, back, bottom=fresh, color="tab:blue",
               label="recovery read of an offloaded file")
        ax.bar(s.turns, s.repeated, bottom=s.new, color=COLORS["thrash"],
               label="repeated call (same tool, same input)")
        top = max([top, *(n + r for n, r in zip(s.new, s.repeated, strict=True))])
        offloads = [r.turn for r in run.records for e in r.compactions if e["layer"] == "offload"]
        if offloads:
            ax.plot(offloads, [-0.3] * len(offloads), "^", color=COLORS["event"], ms=5,
                    label="a result offloaded")
        others = [(r.turn, e["layer"]) for r in run.records for e in r.compactions
                  if e["layer"] != "offload"]
        for n, (turn, layer) in enumerate(others):
            ax.axvline(turn - 0.5, color=COLORS["event"], ls="-.", lw=1,
                       label="context layer fired" if n == 0 else None)
            ax.annotate(layer, (turn - 0.5, top + 0.6), rotation=90, fontsize=7,
                        color=COLORS["event"], ha="right", va="top")
        final = s.rate[-1] if s.rate else 0.0
        ax.set_title(f"{label}: duplicate-call rate {final:.0%}, {len(reads)} recovery reads",
                     fontsize=10)
        ax.set_xlabel("turn")
        turn_axis(ax)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(loc="upper left", fontsize=7)
    axes[0].set_ylabel("tool calls")
    axes[0].set_ylim(-0.7, top + 1.8)
    if title:
        fig.suptitle(title)
    add_caveat(fig, "fingerprint = tool name + hash of its input; ▲ = the previous call's result "
               "went to disk.", tokens=False)
    return fig

