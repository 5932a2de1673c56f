"""Occupancy per turn against the guide's band (§4.6): where stage 5 keeps the context.

§4.6 puts the occupancy to aim for at 50–65 % of the window; past about half, attention turns
to pure recency and early facts are mostly ignored. The figure shows, per run, the share of the
window each request filled, the band shaded, and the summary trigger above it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.figure import Figure

from ctxlab.runner import RunResult

from .figure import add_caveat, new_figure, turn_axis


def plot_occupancy(runs: Mapping[str, RunResult], *, limits: Mapping[str, Any],
                   title: str | None = None) -> Figure:
    """One line per run: each request's occupancy; the band of ``limits[label]`` (a
    ``Thresholds``, the same window for every run) shaded, its trigger dotted."""
    fig = new_figure(10, 3.6)
    ax = fig.subplots()
    for label, run in runs.items():
        agent = [r for r in run.records if r.kind == "agent" and r.error is None]
        ax.plot([r.turn for r in agent], [100 * r.occupancy for r in agent], "o-", ms=2, lw=1,
                label=f"{label} (peak {run.summary.peak_occupancy:.0%})")
    limit = next(iter(limits.values()))
    low, high = 100 * limit.band_low / limit.window, 100 * limit.band_high / limit.window
    ax.axhspan(low, high, color="tab:green", alpha=0.15,
               label=f"the band, {low:.0f}–{high:.0f} % (§4.6)")
    ax.axhline(100 * limit.compact_share, color="tab:red", ls=":", lw=1,
               label=f"summary trigger, {limit.compact_share:.0%}")
    ax.set_ylim(0, 100)
    ax.set_ylabel("occupancy, % of the window")
    ax.set_xlabel("turn (one agent call each)")
    turn_axis(ax)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=7)
    if title:
        fig.suptitle(title)
    add_caveat(fig, "occupancy = the request's input tokens ÷ the model's window.")
    return fig
