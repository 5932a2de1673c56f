"""Server-side vs client-side on one task: tokens, dollars, cache (guide §6.6, §12.1).

Draws the rows of ``ctxlab.beyond.compare_server_side`` (or ``ctxlab serverside --json``):
three panels side by side, one bar per variant — token-per-task, the bill at one price table,
and the share of input read from the cache. A run that did not finish is hatched: its totals
are what it spent before it gave up, not the price of the task.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .figure import add_caveat, new_figure, token_axis

PANELS = (("tokens_per_task", "token-per-task (§12.1)"),
          ("cost_usd_same_prices", "bill at {prices} prices, $"),
          ("cache_read_share", "input read from cache"))
COLORS = {"a": "tab:green", "b0": "tab:gray", "b": "tab:orange", "c": "tab:purple",
          "d": "tab:blue", "baseline": "lightgray"}


def plot_server_side(report: dict[str, Any] | Sequence[dict[str, Any]], *,
                     title: str | None = None) -> Figure:
    """Three bar panels over the variants, a legend that names each one; unfinished runs
    hatched."""
    rows = list(report["runs"] if isinstance(report, dict) else report)
    prices = report.get("prices_of", "one model's") if isinstance(report, dict) else "one"
    fig = new_figure(11, 5)
    grid = fig.add_gridspec(2, len(PANELS), height_ratios=[4, 1])
    axes = [fig.add_subplot(grid[0, i]) for i in range(len(PANELS))]
    keys = [r["variant"] for r in rows]
    for ax, (field, label) in zip(axes, PANELS, strict=True):
        values = [r[field] for r in rows]
        bars = ax.bar(keys, values, color=[COLORS.get(k, "tab:cyan") for k in keys])
        for bar, row in zip(bars, rows, strict=True):
            if not row["success"]:
                bar.set_hatch("//")
                bar.set_edgecolor("black")
        ax.set_title(label.format(prices=prices), fontsize=10)
        if field == "tokens_per_task":
            token_axis(ax)
        if field == "cache_read_share":
            ax.set_ylim(0, 1)
            ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    fig.suptitle(title or "Same task, same bill: who manages the context?")
    swatches = [Patch(facecolor=COLORS.get(k, "tab:cyan"), hatch=None if r["success"] else "//",
                      edgecolor="black" if not r["success"] else "none") for k, r in
                zip(keys, rows, strict=True)]
    names = [f"{r['variant']}: {r['label']} ({r['model']})"
             + ("" if r["success"] else ", did not finish") for r in rows]
    key = fig.add_subplot(grid[1, :])  # the legend gets its own row: the layout makes room
    key.axis("off")
    key.legend(swatches, names, loc="center", ncol=2, fontsize=8, frameon=False)
    add_caveat(fig, "Hatched: did not finish (its totals are what it spent before it gave up).")
    return fig
