"""What the context is made of, by kind of content (guide §2.2–§2.3).

The guide's table of the six parts says tool results make up 70–80 % of an agent's context
(§2.2). These functions measure it on a real history with the reference tokenizer, counting the
way the simulator bills: the system prompt, the tool definitions (plus the tool-use system
prompt the API adds), each message's framing, and each block by its kind.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from ctxlab import dynamic, models
from ctxlab.runner import SYSTEM, RunResult
from ctxlab.sim.render import MESSAGE_FRAMING, image_tokens
from ctxlab.tokens import count_block, count_text
from ctxlab.tools import definitions

from .figure import add_caveat, new_figure, token_axis, turn_axis

KINDS = ("system", "tools", "user text", "assistant text", "thinking", "tool_use",
         "tool_result", "image", "framing")
"""Kinds of content, in the order the charts stack them."""

COLORS = dict(zip(KINDS, ("tab:gray", "tab:brown", "tab:green", "tab:olive", "tab:pink",
                          "tab:orange", "tab:blue", "tab:purple", "lightgray"), strict=True))

Messages = list[dict[str, Any]]


def _add_block(parts: dict[str, int], role: str, block: dict[str, Any] | str) -> None:
    if isinstance(block, str):
        block = {"type": "text", "text": block}
    kind = block.get("type")
    if kind == "image":
        parts["image"] += image_tokens(block.get("source", {}))
    elif kind == "tool_result":
        content = block.get("content")
        nested = content if isinstance(content, list) else []
        parts["image"] += sum(image_tokens(b.get("source", {})) for b in nested
                              if b.get("type") == "image")
        parts["tool_result"] += count_block(block)
    elif kind in ("tool_use", "thinking"):
        parts[kind] += count_block(block)
    elif kind == "redacted_thinking":
        parts["thinking"] += count_block(block)
    else:
        parts["user text" if role == "user" else "assistant text"] += count_block(block)


def composition(messages: Messages, *, system: list[dict[str, Any]] | None = None,
                tools: list[dict[str, Any]] | None = None,
                model: str | None = None) -> dict[str, int]:
    """Tokens per kind (``KINDS``) of one request's context.

    ``system`` and ``tools`` default to the ones ``ctxlab.runner`` sends, the default volatile
    context (the date) included (pass ``[]`` for none); with ``model``, the tool-use system
    prompt the API adds is counted under "tools".
    """
    if system is None:
        system = [{"type": "text", "text": SYSTEM},
                  {"type": "text", "text": dynamic.render(("date",), dynamic.EPOCH)}]
    tools = definitions() if tools is None else tools
    parts = dict.fromkeys(KINDS, 0)
    parts["system"] = sum(count_text(b.get("text", "")) for b in system)
    parts["tools"] = sum(count_text(json.dumps(t, sort_keys=True, ensure_ascii=False))
                         for t in tools)
    if tools and model is not None:
        parts["tools"] += models.get(model).tool_overhead[0]
    for message in messages:
        content = message["content"]
        blocks = [content] if isinstance(content, str) else content
        parts["framing"] += MESSAGE_FRAMING if blocks else 0
        for block in blocks:
            _add_block(parts, message["role"], block)
    return parts


def composition_by_turn(run: RunResult) -> list[tuple[int, dict[str, int]]]:
    """The composition of every agent request of ``run``, rebuilt from its final history.

    Request ``n`` sent the first ``record.messages`` messages of the history — true only while
    no context layer rewrote the history, so a run with truncations or compactions is refused.
    """
    records = [r for r in run.records if r.kind == "agent"]
    if any(r.compactions for r in run.records):
        raise ValueError("the context layer rewrote this history, so its earlier requests "
                         "cannot be rebuilt from it; use composition(run.messages) instead")
    model = records[0].model if records else None
    return [(r.turn, composition(run.messages[: r.messages], model=model)) for r in records]


def _title_share(parts: dict[str, int]) -> str:
    total = sum(parts.values()) or 1
    return f"tool results {parts['tool_result'] / total:.0%} of {total:,} tokens"


def plot_composition(parts: dict[str, int] | Messages, *, title: str | None = None,
                     model: str | None = None) -> Figure:
    """A horizontal bar per kind; pass ``composition(...)`` or a history (measured here)."""
    if isinstance(parts, list):
        parts = composition(parts, model=model)
    shown = [k for k in KINDS if parts.get(k, 0) > 0]
    total = sum(parts.values()) or 1
    fig = new_figure(9, 0.45 * len(shown) + 1.6)
    ax = fig.add_subplot()
    bars = ax.barh(shown, [parts[k] for k in shown], color=[COLORS[k] for k in shown])
    for bar, kind in zip(bars, shown, strict=True):
        ax.annotate(f" {parts[kind]:,} ({parts[kind] / total:.1%})",
                    (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                    va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("tokens")
    token_axis(ax, "x")
    ax.set_xlim(0, max(parts[k] for k in shown) * 1.3 if shown else 1)
    ax.set_title(title or f"What the context is made of: {_title_share(parts)}")
    add_caveat(fig)
    return fig


def plot_composition_over_turns(by_turn: RunResult | Sequence[tuple[int, dict[str, int]]], *,
                                title: str | None = None) -> Figure:
    """Stacked areas: how each kind of content grows turn by turn (§1.2, §2.3)."""
    rows = composition_by_turn(by_turn) if isinstance(by_turn, RunResult) else list(by_turn)
    turns = [t for t, _ in rows]
    shown = [k for k in KINDS if any(p[k] for _, p in rows)]
    fig = new_figure()
    ax = fig.add_subplot()
    ax.stackplot(turns, *[[p[k] for _, p in rows] for k in shown], labels=shown,
                 colors=[COLORS[k] for k in shown], alpha=0.85)
    ax.set_xlabel("turn")
    turn_axis(ax)
    ax.set_ylabel("input tokens")
    token_axis(ax)
    last = rows[-1][1] if rows else dict.fromkeys(KINDS, 0)
    ax.set_title(title or f"Context by kind, turn by turn (last turn: {_title_share(last)})")
    ax.legend(loc="upper left", fontsize=8, reverse=True)
    ax.grid(alpha=0.3)
    add_caveat(fig)
    return fig
