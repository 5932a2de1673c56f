"""Thrashing over the turns: the agent doing again what it already did (guide §12.2).

From a run's records: per turn, the tool calls that are new and those that repeat an earlier
(tool, input) fingerprint, the turns the runner flagged because a repeat returned an unchanged
result, and the running duplicate-call rate. Truncations are marked, since dropping evidence is
what makes the agent fetch it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ctxlab.runner import RunResult
from ctxlab.telemetry import TurnRecord, longest_unchanged_run

from .figure import COLORS, add_caveat, new_figure, turn_axis


@dataclass
class ThrashSeries:
    """The numbers behind ``plot_thrash``."""

    turns: list[int] = field(default_factory=list)
    new: list[int] = field(default_factory=list)
    repeated: list[int] = field(default_factory=list)
    rate: list[float] = field(default_factory=list)  # duplicate-call rate so far
    flagged: list[int] = field(default_factory=list)  # turns with an unchanged repeat
    events: list[int] = field(default_factory=list)  # turns where the context layer fired
    longest_run: int = 0


def thrash_series(run: RunResult | Sequence[TurnRecord]) -> ThrashSeries:
    """Per agent turn: new and repeated calls, the running duplicate rate, flags, events."""
    records = [r for r in (run.records if isinstance(run, RunResult) else run)
               if r.kind == "agent"]
    series = ThrashSeries(longest_run=longest_unchanged_run(records))
    seen: set[tuple[str, str]] = set()
    calls = repeats = 0
    for r in records:
        keys = [(c["name"], c["input_hash"]) for c in r.tool_calls]
        again = sum(k in seen for k in keys)
        seen.update(keys)
        calls += len(keys)
        repeats += again
        series.turns.append(r.turn)
        series.new.append(len(keys) - again)
        series.repeated.append(again)
        series.rate.append(repeats / calls if calls else 0.0)
        if r.thrash:
            series.flagged.append(r.turn)
        if r.compactions:
            series.events.append(r.turn)
    return series


def plot_thrash(run: RunResult | Sequence[TurnRecord], *, title: str | None = None) -> Figure:
    """Stacked bars of new and repeated calls per turn; the running duplicate rate on top."""
    s = thrash_series(run)
    fig = new_figure(9, 4)
    ax = fig.add_subplot()
    ax.bar(s.turns, s.new, color="tab:green", label="new calls")
    ax.bar(s.turns, s.repeated, bottom=s.new, color=COLORS["thrash"],
           label="repeated calls (same tool, same input)")
    tops = dict(zip(s.turns, (n + r for n, r in zip(s.new, s.repeated, strict=True)),
                    strict=True))
    if s.flagged:
        ax.plot(s.flagged, [tops[t] + 0.15 for t in s.flagged], "v", color="black",
                label="repeat with an unchanged result")
    for n, turn in enumerate(s.events):
        ax.axvline(turn - 0.5, color=COLORS["event"], ls="-.", lw=1,
                   label="context layer fired" if n == 0 else None)
    ax.set_xlabel("turn")
    turn_axis(ax)
    ax.set_ylabel("tool calls")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, max(tops.values(), default=1) + 1.5)
    rate_ax = ax.twinx()
    rate_ax.plot(s.turns, [100 * x for x in s.rate], color="black", lw=1,
                 label="duplicate-call rate so far (%)")
    rate_ax.set_ylabel("duplicate-call rate, %")
    rate_ax.set_ylim(0, max(25.0, 100 * max(s.rate, default=0) * 1.3))
    final = s.rate[-1] if s.rate else 0.0
    ax.set_title(title or f"Thrashing (§12.2): duplicate-call rate {final:.0%}, longest "
                 f"unchanged run {s.longest_run}")
    handles, labels = ax.get_legend_handles_labels()
    more, more_labels = rate_ax.get_legend_handles_labels()
    ax.legend(handles + more, labels + more_labels, loc="upper left", fontsize=8)
    add_caveat(fig, "fingerprint = tool name + hash of its input.", tokens=False)
    return fig
