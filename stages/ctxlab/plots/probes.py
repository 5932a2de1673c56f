"""Probe scores after each kind of compaction, by probe kind (guide §12.4–§12.5).

Draws ``ctxlab.beyond.compare_summaries`` (or ``ctxlab probe --json``): a grid of variants ×
the four probe kinds, each cell the share of expected items the answers still held (green is
nothing lost), with the size of the compacted context next to each variant. A kind the
history gave no question for, or a variant that could not run, is left blank.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from .figure import add_caveat, new_figure

KINDS = ("fact", "decision", "forbidden", "current")
LABELS = ("fact recall", "decision trace", "forbidden actions", "current step")


def plot_probe_scores(report: dict[str, Any], *, title: str | None = None) -> Figure:
    """A variants × probe-kinds grid of scores, 0 (red) to 1 (green)."""
    rows = report["variants"]
    grid = np.full((len(rows), len(KINDS)), np.nan)
    for i, row in enumerate(rows):
        for j, kind in enumerate(KINDS):
            value = row["by_kind"].get(kind)
            if value is not None:
                grid[i, j] = value
    fig = new_figure(8, 0.6 * len(rows) + 1.8)
    ax = fig.add_subplot()
    image = ax.imshow(np.ma.masked_invalid(grid), cmap="RdYlGn", vmin=0, vmax=1,
                      aspect="auto")
    for i in range(len(rows)):
        for j in range(len(KINDS)):
            text = "–" if np.isnan(grid[i, j]) else f"{grid[i, j]:.2f}"
            ax.text(j, i, text, ha="center", va="center", fontsize=9)
    ax.set_xticks(range(len(KINDS)), LABELS)
    names = [f"{r['variant']}\n({r['context_tokens']:,} tokens)" if r["context_tokens"]
             else f"{r['variant']}\n(not run)" for r in rows]
    ax.set_yticks(range(len(rows)), names, fontsize=8)
    fig.colorbar(image, ax=ax, label="share of expected items in the answer")
    ax.set_title(title or f"Probes after compaction: {report['scenario']}, after step "
                          f"'{report['after']}' ({report['history_tokens']:,}-token history)")
    add_caveat(fig, f"{len(report['probes'])} probes from the scenario's ground truth.")
    return fig
