"""Per-turn context size against the window (guide §14 stage 1 step 4, §9.5, §8).

One point per agent call: the size the API reported (the ground truth, §9.5) and the local
chars/4 estimate, under the model's window and a threshold line (stage 2 truncates when the
*estimate* passes it). Context-layer events (truncations, compactions) are marked where they
fired, and a rejected call is marked where it failed.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ctxlab import models
from ctxlab.runner import RunResult
from ctxlab.telemetry import TurnRecord
from ctxlab.view import parse_prompt_too_long

from .figure import COLORS, add_caveat, new_figure, token_axis, turn_axis

ERROR_WRAP = 40  # characters per line of the error label


@dataclass
class ContextSeries:
    """The numbers behind ``plot_context``; ``reported`` is None on a rejected call."""

    model: str
    window: int
    turns: list[int] = field(default_factory=list)
    reported: list[int | None] = field(default_factory=list)
    estimated: list[int] = field(default_factory=list)
    events: list[tuple[int, str, int]] = field(default_factory=list)  # turn, layer, freed
    errors: list[tuple[int, int, str]] = field(default_factory=list)  # turn, tokens, message


def _records(run: RunResult | Sequence[TurnRecord]) -> list[TurnRecord]:
    return list(run.records if isinstance(run, RunResult) else run)


def context_series(run: RunResult | Sequence[TurnRecord]) -> ContextSeries:
    """Per agent call: reported and estimated input tokens, events and errors."""
    records = [r for r in _records(run) if r.kind == "agent"]
    if not records:
        raise ValueError("the run has no agent calls to plot")
    spec = models.get(records[0].model)
    series = ContextSeries(spec.id, spec.context_window)
    for r in records:
        series.turns.append(r.turn)
        series.estimated.append(r.estimated_tokens)
        series.reported.append(None if r.error is not None else r.reported_input_tokens)
        series.events.extend((r.turn, c["layer"], c["tokens_freed"]) for c in r.compactions)
        if r.error is not None:
            sent = parse_prompt_too_long(r.error["message"])
            series.errors.append((r.turn, sent[0] if sent else r.estimated_tokens,
                                  r.error["message"]))
    return series


def _error_label(ax: Axes, s: ContextSeries, turn: int, tokens: int, message: str) -> None:
    """The API's message beside the rejected call, on the side of the chart with room for it,
    wrapped, so it never runs off the figure."""
    left_half = turn <= (s.turns[0] + s.turns[-1]) / 2
    ax.annotate("\n".join(textwrap.wrap(message, ERROR_WRAP)[:3]), (turn, tokens), fontsize=7,
                color=COLORS["error"], xytext=(8 if left_half else -8, 8),
                textcoords="offset points", ha="left" if left_half else "right", va="bottom")


def plot_context(run: RunResult | Sequence[TurnRecord], *, ratio: float | None = 0.8,
                 title: str | None = None) -> Figure:
    """Context size per turn: reported vs estimated, the window, ``ratio`` of it, events."""
    s = context_series(run)
    fig = new_figure()
    ax = fig.add_subplot()
    reported = [(t, v) for t, v in zip(s.turns, s.reported, strict=True) if v is not None]
    ax.plot([t for t, _ in reported], [v for _, v in reported], "o-", ms=3,
            color=COLORS["reported"], label="reported by the API (usage)")
    ax.plot(s.turns, s.estimated, "s--", ms=3, color=COLORS["estimated"],
            label="estimated locally (chars/4)")
    ax.axhline(s.window, color=COLORS["window"], lw=1.5, label=f"window ({s.window:,})")
    if ratio is not None:
        ax.axhline(ratio * s.window, color=COLORS["threshold"], lw=1, ls=":",
                   label=f"{ratio:.0%} of the window")
    for n, (turn, layer, freed) in enumerate(s.events):
        ax.axvline(turn - 0.5, color=COLORS["event"], lw=1, ls="-.",
                   label="context layer fired" if n == 0 else None)
        ax.annotate(f"{layer} -{freed:,}", (turn - 0.5, s.window * 0.05), rotation=90,
                    fontsize=7, color=COLORS["event"], ha="right", va="bottom")
    for n, (turn, tokens, message) in enumerate(s.errors):
        ax.plot([turn], [tokens], "X", ms=11, color=COLORS["error"],
                label="rejected call" if n == 0 else None)
        _error_label(ax, s, turn, tokens, message)
    ax.set_xlabel("turn (one model call each)")
    turn_axis(ax)
    ax.set_ylabel("input tokens")
    token_axis(ax)
    ax.set_ylim(0, max([s.window, *s.estimated, *(t for _, t, _ in s.errors)]) * 1.12)
    ax.set_title(title or f"Context size per turn on {s.model}")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    add_caveat(fig)
    return fig
