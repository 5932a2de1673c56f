"""The chars/4 estimate against the count (guide §9.5, §14 stage 1 "see it with your own eyes").

Four characters per token roughly holds for English prose; Chinese text runs at one to two
characters per token and code sits in between (§9.5). Two views: the per-turn error of a run's
estimate against what the API reported, and characters per token of sample texts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from ctxlab.runner import RunResult
from ctxlab.telemetry import TurnRecord
from ctxlab.tokens import count_text

from .figure import add_caveat, new_figure, turn_axis

NAIVE_CHARS_PER_TOKEN = 4


def estimate_errors(run: RunResult | Sequence[TurnRecord]) -> list[tuple[int, float]]:
    """(turn, relative error) per accepted agent call: (estimated − reported) / reported.

    Negative means the estimate is too low: the context is bigger than the agent thinks.
    """
    records = run.records if isinstance(run, RunResult) else run
    return [(r.turn, (r.estimated_tokens - r.reported_input_tokens) / r.reported_input_tokens)
            for r in records
            if r.kind == "agent" and r.error is None and r.reported_input_tokens > 0]


def plot_estimate_error(runs: Mapping[str, RunResult | Sequence[TurnRecord]], *,
                        title: str | None = None) -> Figure:
    """One line per labelled run: the estimate's error per turn, in percent of reported."""
    fig = new_figure()
    ax = fig.add_subplot()
    for label, run in runs.items():
        points = estimate_errors(run)
        last = f" (last turn {points[-1][1]:+.0%})" if points else ""
        ax.plot([t for t, _ in points], [100 * e for _, e in points], "o-", ms=3,
                label=f"{label}{last}")
    ax.axhline(0, color="black", lw=1)
    ax.set_xlabel("turn")
    turn_axis(ax)
    ax.set_ylabel("estimate error, % of reported")
    ax.set_title(title or "chars/4 against the API's count: below zero = underestimate")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    add_caveat(fig, "reported includes the tool-use system prompt, which chars/4 cannot see.")
    return fig


def chars_per_token(text: str) -> float:
    """Characters per reference token of ``text`` (chars/4 assumes 4)."""
    tokens = count_text(text)
    return len(text) / tokens if tokens else 0.0


def plot_chars_per_token(samples: Mapping[str, str], *, title: str | None = None) -> Figure:
    """A bar per sample text: measured characters per token against the assumed four."""
    labels = list(samples)
    ratios = [chars_per_token(samples[k]) for k in labels]
    fig = new_figure(9, 3.8)
    ax = fig.add_subplot()
    bars = ax.bar(labels, ratios, color="tab:blue")
    for bar, label in zip(bars, labels, strict=True):
        text = samples[label]
        estimate, counted = -(-len(text) // NAIVE_CHARS_PER_TOKEN), count_text(text)
        ax.annotate(f"{bar.get_height():.2f}\nchars/4 {estimate:,} vs {counted:,}",
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center",
                    va="bottom", fontsize=8)
    ax.axhline(NAIVE_CHARS_PER_TOKEN, color="tab:red", ls=":",
               label=f"the naive assumption: {NAIVE_CHARS_PER_TOKEN} chars per token")
    ax.set_ylabel("characters per token")
    ax.set_ylim(0, max([NAIVE_CHARS_PER_TOKEN, *ratios]) * 1.35)
    ax.set_title(title or "Characters per token by kind of text")
    ax.legend(fontsize=8, loc="upper right")
    add_caveat(fig)
    return fig
