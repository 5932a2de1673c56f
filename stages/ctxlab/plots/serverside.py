"""Server-side vs client-side on one task: tokens, dollars, cache (guide §6.6, §12.1).

Draws the rows of ``ctxlab.beyond.compare_server_side`` (or ``ctxlab serverside --json``):
three panels side by side, one bar per variant — token-per-task, the bill at one price table,
and the share of input read from the cache. A run that did not finish is hatched: its totals
are what it spent before it gave up, not the price of the task.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from .figure import add_caveat, new_figure, token_axis

PANELS = (("tokens_per_task", "token-per-task (§12.1)"),
          ("cost_usd_same_prices", "bill at {prices} prices, $"),
          ("cache_read_share", "input read from cache"))
COLORS = {"a": "tab:green", "b0": "tab:gray", "b": "tab:orange", "c": "tab:purple",
          "d": "tab:blue", "baseline": "lightgray"}


def plot_server_side(report: dict[str, Any] | Sequence[dict[str, Any]], *,
                     title: str | None = None) -> Figure:
    """Three bar panels over the variants; unfinished runs hatched."""
    rows = list(report["runs"] if isinstance(report, dict) else report)
    prices = report.get("prices_of", "one model's") if isinstance(report, dict) else "one"
    fig = new_figure(11, 4)
    axes = fig.subplots(1, len(PANELS))
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
    legend = "; ".join(f"{r['variant']} = {r['label']} ({r['model']})" for r in rows)
    add_caveat(fig, "\n".join(textwrap.wrap(legend + ". Hatched: did not finish.", 150)))
    return fig
