"""Which context layer fired when, and how much it freed (guide §7.2, §12.6, §12.8).

Per agent call: the size of the request the API accepted (after the layers ran), and on top
of it one bar per layer that fired before that request, as tall as the tokens it freed. So
the top of a stack is roughly what the request would have been without the layers. The
thresholds the pipeline used can be drawn across (anything with ``window``, ``compact_at``,
``target`` and ``blocking_at``, like stage 5's ``Thresholds``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure

from ctxlab.runner import RunResult

from .figure import add_caveat, new_figure, token_axis, turn_axis

LAYER_COLORS = {
    "offload": "tab:blue", "truncate": "tab:red", "snip": "tab:orange",
    "microcompact": "tab:olive", "summary": "tab:purple", "ptl-drop": "black",
    "blocking": "darkred",
}
"""One colour per layer name as ``Session.report`` writes it."""


@dataclass(frozen=True)
class LayerEvent:
    """One firing of one layer, as the record of the next request carries it."""

    turn: int
    layer: str
    freed: int
    trigger: str


def layer_events(run: RunResult) -> list[LayerEvent]:
    """Every context-layer event of ``run`` in order."""
    return [LayerEvent(r.turn, e["layer"], e["tokens_freed"], e["trigger"])
            for r in run.records for e in r.compactions]


def layer_totals(run: RunResult) -> dict[str, tuple[int, int]]:
    """Layer → (times fired, tokens freed), in order of first firing."""
    counts, freed = Counter[str](), Counter[str]()
    for event in layer_events(run):
        counts[event.layer] += 1
        freed[event.layer] += event.freed
    return {layer: (counts[layer], freed[layer]) for layer in counts}


def plot_layers(runs: Mapping[str, RunResult], *, limits: Mapping[str, Any] | None = None,
                title: str | None = None) -> Figure:
    """One panel per run: request size per turn, freed tokens stacked by layer on top."""
    fig = new_figure(10, 3.1 * len(runs) + 0.6)
    axes = fig.subplots(len(runs), 1, squeeze=False)[:, 0]
    for ax, (label, run) in zip(axes, runs.items(), strict=True):
        agent = [r for r in run.records if r.kind == "agent" and r.error is None]
        ax.plot([r.turn for r in agent], [r.reported_input_tokens for r in agent], "o-", ms=2,
                color="tab:gray", lw=1, label="request sent (after the layers)")
        seen: set[str] = set()
        for record in agent:
            bottom = record.reported_input_tokens
            for event in record.compactions:
                layer = event["layer"]
                ax.bar(record.turn, event["tokens_freed"], bottom=bottom, width=0.8,
                       color=LAYER_COLORS.get(layer, "tab:cyan"),
                       label=f"freed by {layer}" if layer not in seen else None)
                seen.add(layer)
                bottom += event["tokens_freed"]
        limit = (limits or {}).get(label)
        if limit is not None:
            ax.axhline(limit.compact_at, color="tab:red", ls=":", lw=1,
                       label=f"pipeline runs above {limit.compact_at:,}")
            ax.axhline(limit.target, color="tab:green", ls=":", lw=1,
                       label=f"cheap layers stop at {limit.target:,}")
        totals = layer_totals(run)
        fired = ", ".join(f"{layer} ×{n} (-{freed:,})" for layer, (n, freed) in totals.items())
        ax.set_title(f"{label}: {fired or 'no layer fired'}", fontsize=10)
        ax.set_ylabel("input tokens")
        token_axis(ax)
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize=7)
    axes[-1].set_xlabel("turn (one agent call each)")
    for ax in axes:
        turn_axis(ax)
    if title:
        fig.suptitle(title)
    add_caveat(fig, "bar = tokens freed just before that request, stacked on what was sent.")
    return fig


def plot_thresholds(limits: Mapping[str, Any], *, title: str | None = None) -> Figure:
    """One bar per window, as shares of it: where the cheap layers stop, where the pipeline
    runs and where only a local cut may run (§8.1, §8.5)."""
    fig = new_figure(9, 0.8 * len(limits) + 1.6)
    ax = fig.add_subplot()
    labels = list(limits)
    zones = (("below the target", "tab:green", lambda t: 0, lambda t: t.target),
             ("target → trigger", "khaki", lambda t: t.target, lambda t: t.compact_at),
             ("pipeline runs", "tab:orange", lambda t: t.compact_at, lambda t: t.blocking_at),
             ("blocking: local cut only", "tab:red", lambda t: t.blocking_at,
              lambda t: t.window))
    for name, color, start, end in zones:
        lefts = [100 * start(limits[k]) / limits[k].window for k in labels]
        widths = [100 * (end(limits[k]) - start(limits[k])) / limits[k].window for k in labels]
        ax.barh(labels, widths, left=lefts, color=color, label=name, height=0.5)
    for n, key in enumerate(labels):
        t = limits[key]
        ax.annotate(f"trigger {t.compact_at:,} = {t.compact_at / t.window:.1%} ",
                    (100 * t.compact_at / t.window, n), ha="right", va="center", fontsize=8)
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the context window")
    ax.invert_yaxis()
    ax.set_title(title or "The same subtraction on different windows (§8.1)")
    ax.legend(loc="upper center", fontsize=7, ncol=4, bbox_to_anchor=(0.5, -0.3))
    add_caveat(fig)
    return fig
