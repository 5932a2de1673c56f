"""The notebook chart of a replay (§12.6): a Figure, one line per stage, marks where a layer
fired."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from ctxlab.replay import replay_file  # noqa: E402
from ctxlab.replay.plot import plot_replay  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"


def test_plot_replay_draws_each_stage_and_each_layer() -> None:
    path = FIXTURES / "split-interleaved.jsonl"
    runs = [replay_file(path, 2, window=2_000),
            replay_file(path, 3, window=2_000, options={"per_result": 2_000})]
    fig = plot_replay(runs)
    ax = fig.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert {"stage 2", "stage 3", "truncate fired", "offload fired"} <= set(labels)
    stage_two = next(line for line in ax.lines if line.get_label() == "stage 2")
    assert list(stage_two.get_ydata()) == [p.tokens for p in runs[0].points]


def test_an_empty_replay_cannot_be_plotted() -> None:
    with pytest.raises(ValueError, match="nothing to plot"):
        plot_replay([])
