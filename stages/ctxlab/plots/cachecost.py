"""When to compact, in dollars, and what an idle pause changes (guide §6.5–§6.7).

Two charts for ``ctxlab.beyond.cache_cost_report`` (or ``ctxlab cachecost --json``):

- ``plot_compaction_timing``: the total bill of the next turns for each choice of the turn to
  compact at (0 = now), with the cache warm throughout and with one long pause; the dashed
  lines are never compacting. The cheapest turn is marked.
- ``plot_cold_cache``: the next request's bill after each idle pause, as it is and with old
  results cleared first, from the simulator; the cost model's predictions as black ticks.
"""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from .figure import add_caveat, new_figure, turn_axis

LINES = (("warm", "cache warm throughout", "tab:blue"),
         ("paused", "with a pause", "tab:red"))


def plot_compaction_timing(report: dict[str, Any], *, title: str | None = None) -> Figure:
    """Total dollars over the horizon against the turn at which the context is compacted."""
    fig = new_figure(9, 4.5)
    ax = fig.add_subplot()
    plans = report["plans"]
    for key, label, color in LINES:
        p = plans[key]
        if key == "paused":
            minutes = p["pause_s"] / 60
            label = f"{minutes:.0f}-minute pause before turn {p['pause_at']}"
            ax.axvline(p["pause_at"], color=color, ls=":", lw=1)
        turns = [j for j, t in enumerate(p["totals_usd"]) if t is not None]
        ax.plot(turns, [p["totals_usd"][j] for j in turns], "o-", color=color, ms=4,
                label=f"compact before turn N, {label}")
        if p["never_usd"] is not None:
            ax.axhline(p["never_usd"], color=color, ls="--", lw=1,
                       label=f"never compact, {label}")
        best = p["best_turn"]
        if best is not None:
            ax.plot([best], [p["totals_usd"][best]], "*", color="black", ms=14)
    ax.set_xlabel("N: the turn before which the context is compacted (0 = now)")
    turn_axis(ax)
    ax.set_ylabel("bill of the next turns, $")
    sit = report["situation"]
    how = report.get("measured", {})
    ax.set_title(title or f"Compact now or after N more turns? ({how.get('kind', '')}, "
                          f"{sit['history_tokens']:,}-token history, {how.get('model', '')})")
    ax.legend(fontsize=8, loc="upper left")
    add_caveat(fig, f"Star: the cheapest choice. Kept after compacting: "
                    f"{sit['kept_tokens']:,} tokens; growth {sit['growth_per_turn']:,}/turn.")
    return fig


def plot_cold_cache(check: dict[str, Any], *, title: str | None = None) -> Figure:
    """Grouped bars per pause: the next request as it is and with old results cleared."""
    rows = check["requests"]
    pauses = list(dict.fromkeys(r["pause"] for r in rows))
    fig = new_figure(9, 4)
    ax = fig.add_subplot()
    width = 0.38
    for offset, cleared, color, label in ((-width / 2, False, "tab:blue", "as it is"),
                                          (width / 2, True, "tab:orange",
                                           "old results cleared first")):
        mine = [next(r for r in rows if r["pause"] == p and r["cleared"] is cleared)
                for p in pauses]
        xs = [i + offset for i in range(len(pauses))]
        ax.bar(xs, [r["actual_usd"] for r in mine], width, color=color,
               label=f"{label} (simulator's bill)")
        ax.plot(xs, [r["predicted_usd"] for r in mine], "_", color="black", ms=22, mew=2,
                label="cost model" if cleared else None)
    for i, p in enumerate(pauses):
        extra = check["extra_cost_of_clearing_usd"][p]
        ax.annotate(f"clearing: {extra:+.3f} $", (i, 0), xytext=(0, -28),
                    textcoords="offset points", ha="center", fontsize=8)
    ax.set_xticks(range(len(pauses)), [f"idle {p}" for p in pauses])
    ax.set_ylabel("next request's input bill, $")
    ax.set_title(title or "Clearing costs extra only while the cache is warm (§6.7)")
    ax.legend(fontsize=8, loc="upper left")
    add_caveat(fig, f"{check['scenario']} after {check['after_turns']} turns of stage 5 on "
                    f"{check['model']}; max_tokens 0 requests (input only).")
    return fig
