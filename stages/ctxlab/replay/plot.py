"""A replay as a chart, for notebooks: request size over the session, layer by layer (§12.6).

``plot_replay(report)`` draws, per replayed request, the size with no layer (the recorded
size where the log has usage), the size after the layer, the part the layers never see (what
the usage shows beyond the logged messages: system prompt, tools, tokenizer gap), the window,
and a mark where each layer fired.
Several reports of the same log (stage 2, 3, 4 …) can be drawn on one chart to compare them.
It returns a ``matplotlib.figure.Figure`` and never touches pyplot's global state.

    from ctxlab.replay import replay_file
    from ctxlab.replay.plot import plot_replay
    plot_replay([replay_file(path, stage=n, window=60_000) for n in (2, 3, 4)])
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from ctxlab.plots.figure import COLORS, add_caveat, new_figure, token_axis

from .report import ReplayReport

LAYER_MARKS = ("v", "^", "D", "s", "P", "X")


def plot_replay(reports: ReplayReport | Sequence[ReplayReport], *,
                title: str | None = None) -> Figure:
    """Request size per replayed request for one or several replays of one log."""
    runs = [reports] if isinstance(reports, ReplayReport) else list(reports)
    if not runs or not runs[0].points:
        raise ValueError("nothing to plot: the replay made no request")
    first = runs[0]
    turns = [p.turn for p in first.points]
    fig = new_figure()
    ax = fig.add_subplot()
    ax.plot(turns, [p.baseline for p in first.points], color="grey", ls="--", lw=1.2,
            label="no layer (recorded size where known)")
    ax.fill_between(turns, [p.overhead for p in first.points], color="grey", alpha=0.15,
                    label="beyond the logged messages (system, tools, tokenizer gap)")
    layers: dict[str, str] = {}
    for run in runs:
        line, = ax.plot([p.turn for p in run.points], [p.tokens for p in run.points], "o-",
                        ms=2.5, lw=1.2, label=run.through)
        by_turn = {p.turn: p.tokens for p in run.points}
        for event in run.events:
            mark = layers.setdefault(event.layer, LAYER_MARKS[len(layers) % len(LAYER_MARKS)])
            ax.plot([event.turn], [by_turn.get(event.turn, 0)], mark, ms=7,
                    color=line.get_color(), markeredgecolor="black")
    for name, mark in layers.items():
        ax.plot([], [], mark, color="white", markeredgecolor="black", label=f"{name} fired")
    ax.axhline(first.window, color=COLORS["window"], lw=1.5, label=f"window ({first.window:,})")
    ax.set_xlabel("request (one recorded reply each)")
    ax.set_ylabel("input tokens")
    token_axis(ax)
    top = max([first.window, *(p.baseline for p in first.points),
               *(p.tokens for run in runs for p in run.points)])
    ax.set_ylim(0, top * 1.1)
    ax.set_title(title or f"Replay of {first.file} on {first.model}")
    ax.legend(loc="best", fontsize=8)
    ax.grid(alpha=0.3)
    add_caveat(fig, "Size = the messages kept + the overhead the log's usage shows.")
    return fig
