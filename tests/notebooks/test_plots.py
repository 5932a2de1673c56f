"""``ctxlab.plots``: every chart drawn from a real run, and checked for what it shows.

The charts are bench code, so they are tested on the reference stages whatever ``--impl`` says.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator

import pytest
from matplotlib.figure import Figure

from ctxlab import models, plots, runner, telemetry, use
from ctxlab.plots.controls import describe
from ctxlab.plots.history import round_of
from ctxlab.tokens import CAVEAT
from ctxlab.workbook.router import FINDER

LONG, MODEL = "long-task", "claude-haiku-4-5"
WINDOW = models.get(MODEL).context_window


@pytest.fixture(scope="module", autouse=True)
def reference() -> Iterator[None]:
    before = FINDER.selection
    use("solutions")
    yield
    use(before.impl, before.stage, before.chain)


@pytest.fixture(scope="module")
def overflow(reference: None) -> runner.RunResult:
    return runner.run(1, LONG, model=MODEL)


@pytest.fixture(scope="module")
def truncated(reference: None) -> runner.RunResult:
    return runner.run(2, LONG, model=MODEL)


@pytest.fixture(scope="module")
def small(reference: None) -> runner.RunResult:
    return runner.run(1, "bugfix-small")


@pytest.fixture(scope="module")
def chinese(reference: None) -> runner.RunResult:
    return runner.run(1, "chinese-code")


def line(fig: Figure, label: str):
    matches = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == label]
    assert matches, f"no line labelled {label!r}"
    return matches[0]


def labels(fig: Figure) -> list[str]:
    return [ln.get_label() for ln in fig.axes[0].get_lines()]


def footnote(fig: Figure) -> str:
    return fig._supxlabel.get_text() if fig._supxlabel is not None else ""


def renders(fig: Figure) -> None:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    assert buffer.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"


def test_context_of_an_overflow(overflow: runner.RunResult) -> None:
    fig = plots.plot_context(overflow)
    accepted = [r for r in overflow.records if r.error is None]
    reported = line(fig, "reported by the API (usage)")
    assert list(reported.get_ydata()) == [r.reported_input_tokens for r in accepted]
    estimated = line(fig, "estimated locally (chars/4)")
    assert list(estimated.get_ydata()) == [r.estimated_tokens for r in overflow.records]
    assert list(line(fig, f"window ({WINDOW:,})").get_ydata()) == [WINDOW, WINDOW]
    assert list(line(fig, "80% of the window").get_ydata()) == [0.8 * WINDOW] * 2
    rejected = line(fig, "rejected call")
    assert list(rejected.get_xdata()) == [overflow.records[-1].turn]
    assert rejected.get_ydata()[0] > WINDOW  # the size the API refused, parsed from the error
    assert "context layer fired" not in labels(fig)
    assert CAVEAT in footnote(fig)
    renders(fig)


def test_context_marks_truncations(truncated: runner.RunResult) -> None:
    fig = plots.plot_context(truncated, ratio=None)
    fired = [r for r in truncated.records if r.compactions]
    assert fired, "stage 2 should truncate the long task on a 200K window"
    events = [ln for ln in fig.axes[0].get_lines() if ln.get_linestyle() == "-."]
    assert [ln.get_xdata()[0] for ln in events] == [r.turn - 0.5 for r in fired]
    notes = [t.get_text() for t in fig.axes[0].texts]
    assert any(n.startswith("truncate -") for n in notes)
    assert not any("of the window" in label for label in labels(fig))
    series = plots.context_series(truncated)  # a refused request is an error, not a size
    refused = [(r.turn, r.error["message"]) for r in truncated.records if r.error]
    assert [(turn, message) for turn, _, message in series.errors] == refused
    assert [r.error is not None for r in truncated.records] == [v is None for v in series.reported]


def test_composition_adds_up_to_the_reported_size(small: runner.RunResult,
                                                  overflow: runner.RunResult) -> None:
    for run in (small, overflow):
        last = [r for r in run.records if r.error is None][-1]
        parts = plots.composition(run.messages[: last.messages], model=last.model)
        assert set(parts) == set(plots.KINDS)
        assert sum(parts.values()) == last.reported_input_tokens
    parts = plots.composition(overflow.messages, model=MODEL)
    assert parts["tool_result"] > 0.7 * sum(parts.values())  # §2.2: tool results dominate
    assert plots.composition([], system=[], tools=[]) == dict.fromkeys(plots.KINDS, 0)


def test_composition_chart(overflow: runner.RunResult) -> None:
    parts = plots.composition(overflow.messages, model=MODEL)
    fig = plots.plot_composition(parts)
    ax = fig.axes[0]
    shown = [t.get_text() for t in ax.get_yticklabels()]
    assert shown == [k for k in plots.KINDS if parts[k]]
    assert [p.get_width() for p in ax.patches] == [parts[k] for k in shown]
    assert "tool results" in ax.get_title()
    assert CAVEAT in footnote(fig)
    renders(fig)


def test_composition_over_turns(overflow: runner.RunResult,
                                truncated: runner.RunResult) -> None:
    rows = plots.composition_by_turn(overflow)
    accepted = {r.turn: r.reported_input_tokens for r in overflow.records if r.error is None}
    assert {t: sum(p.values()) for t, p in rows if t in accepted} == accepted
    fig = plots.plot_composition_over_turns(overflow)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "tool_result" in legend and "tools" in legend
    assert len(fig.axes[0].collections) == len(legend)
    with pytest.raises(ValueError, match="rewrote"):
        plots.composition_by_turn(truncated)


def test_estimate_error(small: runner.RunResult, chinese: runner.RunResult) -> None:
    errors = {name: plots.estimate_errors(run) for name, run in
              (("chinese-code", chinese), ("bugfix-small", small))}
    assert errors["chinese-code"][-1][1] < -0.5  # §9.5: far off on Chinese
    assert errors["chinese-code"][-1][1] < errors["bugfix-small"][-1][1] < 0
    fig = plots.plot_estimate_error({"chinese-code": chinese, "bugfix-small": small})
    for name, points in errors.items():
        drawn = [ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith(name)]
        assert len(drawn) == 1
        assert list(drawn[0].get_ydata()) == pytest.approx([100 * e for _, e in points])
    renders(fig)


def test_chars_per_token() -> None:
    samples = {"English": "The agent reads the file, runs the tests and fixes the bug. " * 20,
               "Chinese": "模型不记得上一轮，每一次调用都要把全部历史重新发一遍。" * 20}
    assert plots.chars_per_token(samples["English"]) > 3.5
    assert plots.chars_per_token(samples["Chinese"]) < 2
    fig = plots.plot_chars_per_token(samples)
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert heights == pytest.approx([plots.chars_per_token(t) for t in samples.values()])
    assert list(line(fig, "the naive assumption: 4 chars per token").get_ydata()) == [4, 4]


def test_thrash(truncated: runner.RunResult) -> None:
    series = plots.thrash_series(truncated)
    summary = truncated.summary
    assert summary.duplicate_call_rate > 0
    assert series.rate[-1] == pytest.approx(summary.duplicate_call_rate)
    assert series.longest_run == summary.longest_unchanged_run
    assert series.flagged == [r.turn for r in truncated.records if r.thrash]
    assert series.events == [r.turn for r in truncated.records if r.compactions]
    total = sum(len(r.tool_calls) for r in truncated.records)
    assert sum(series.new) + sum(series.repeated) == total
    assert sum(series.repeated) == round(summary.duplicate_call_rate * total)
    fig = plots.plot_thrash(truncated)
    bars = fig.axes[0].patches
    assert len(bars) == 2 * len(series.turns)
    assert [b.get_height() for b in bars[len(series.turns):]] == series.repeated
    assert f"{summary.duplicate_call_rate:.0%}" in fig.axes[0].get_title()
    assert len(fig.axes) == 2  # the running rate on a second y axis
    renders(fig)


def test_recorded_calls_feed_thrash_report(truncated: runner.RunResult) -> None:
    import s2_truncate

    result, calls = plots.run_recorded(2, LONG, model=MODEL)
    assert result.summary == truncated.summary  # recording does not change the run
    # The recorder sees a call once its result reaches the model. A refused request ends the
    # run (stage 2 on this task: its estimate runs under the API's count, §9.5), so the calls
    # of the last answered turn never reach it; every other call does.
    answered = [r for r in result.records if r.error is None]
    reached = answered[:-1] if result.summary.error else answered
    assert len(calls) == sum(len(r.tool_calls) for r in reached)
    report = s2_truncate.thrash_report(calls)
    assert report.duplicate_rate == pytest.approx(telemetry.duplicate_call_rate(reached))
    assert report.longest_run == telemetry.longest_unchanged_run(reached)


def test_outline(small: runner.RunResult) -> None:
    import s2_truncate

    rounds = s2_truncate.api_rounds(small.messages)
    table = plots.outline(small.messages, rounds=rounds)
    assert table.row_count == len(small.messages)
    assert [c.header for c in table.columns] == ["#", "role", "round", "blocks"]
    assert round_of(rounds, len(small.messages) - 1) == len(rounds) - 1
    assert "tool_use" in plots.describe_block(small.messages[1]["content"][-1])


def test_rerun_panel_reruns_and_redraws(truncated: runner.RunResult) -> None:
    panel = plots.RerunPanel(2, LONG, model=MODEL, ratio=0.8)
    assert panel.widget is not None
    assert panel.result.summary == truncated.summary  # the panel's first run is the stage's run
    assert len(panel.figures) == 2
    first = panel.figures[0]
    panel.slider.value = 0.9  # the estimate never reaches 90 %: the real request overflows
    panel.button.click()
    assert panel.figures[0] is not first
    assert "prompt is too long" in panel.result.summary.error["message"]
    assert "prompt is too long" in panel.status
    assert list(line(panel.figures[0], "90% of the window").get_ydata()) == [0.9 * WINDOW] * 2
    panel.dropdown.value = "claude-sonnet-4-6"
    panel.rerun()
    assert panel.result.records[0].model == "claude-sonnet-4-6"
    assert describe(panel.result).startswith("succeeded")


@pytest.mark.shares_runs("no ipywidgets changes the panel's controls; no run imports it")
def test_rerun_panel_without_ipywidgets(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import fails
    panel = plots.RerunPanel(2, "bugfix-small", model="ctxlab-sim-32k")
    assert panel.widget is None and len(panel.figures) == 2
    panel._ipython_display_()
    assert "succeeded" in capsys.readouterr().out


def test_a_panel_shows_its_charts_as_outputs_an_export_keeps() -> None:
    """Controls first (with a text line saying what an export shows), then the status line and
    each chart as its own output with a display id; a rerun updates those outputs in place."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    InteractiveShell.instance()
    panel = plots.RerunPanel(2, "bugfix-small", model="ctxlab-sim-32k")
    with capture_output() as shown:
        panel._ipython_display_()
    controls, status, *charts = shown.outputs
    assert "application/vnd.jupyter.widget-view+json" in controls.data
    assert controls.data["text/plain"].startswith("[controls: ratio, model and a Run button")
    assert "exported to HTML" in controls.data["text/plain"]
    assert "succeeded" in status.data["text/html"] and len(charts) == len(panel.figures) == 2
    ids = [o.transient["display_id"] for o in (status, *charts)]
    panel.slider.value = 0.6
    with capture_output() as rerun:
        panel.button.click()
    assert [o.update for o in rerun.outputs] == [True] * 3
    assert [o.transient["display_id"] for o in rerun.outputs] == ids
    assert "ratio 0.60" in rerun.outputs[0].data["text/html"]


@pytest.mark.parametrize("failed_at", [1, 3])
def test_short_runs_get_whole_turn_ticks_and_the_error_label_stays_on_the_figure(
        failed_at: int) -> None:
    from ctxlab.telemetry import record_from_usage

    message = "prompt is too long: 209337 tokens > 200000 maximum"
    records = [record_from_usage(t, "agent", None if t == failed_at else
                                 {"input_tokens": 50_000 * t, "output_tokens": 10},
                                 model=MODEL, messages_sent=2 * t, estimated_tokens=40_000 * t,
                                 error={"type": "invalid_request_error", "message": message}
                                 if t == failed_at else None)
               for t in range(1, 4)]
    fig = plots.plot_context(records)
    fig.canvas.draw()
    ax = fig.axes[0]
    shown = [tick for tick in ax.get_xticks() if ax.get_xlim()[0] <= tick <= ax.get_xlim()[1]]
    assert shown and all(float(tick).is_integer() for tick in shown)
    label = next(t for t in ax.texts if t.get_text().startswith("prompt is too long"))
    box, page = label.get_window_extent(), fig.bbox
    assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1
    assert " ".join(label.get_text().split()) == message  # wrapped, not cut


def test_the_server_side_chart_names_every_variant_in_a_legend() -> None:
    rows = [{"variant": key, "label": f"variant {key}", "model": MODEL, "success": key != "b0",
             "tokens_per_task": 1_000_000, "cost_usd_same_prices": 1.0, "cache_read_share": 0.5}
            for key in ("a", "b0", "b", "c", "d", "baseline")]
    from ctxlab.plots.serverside import plot_server_side

    fig = plot_server_side({"runs": rows, "prices_of": MODEL})
    fig.canvas.draw()
    legend = next(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)
    names = [t.get_text() for t in legend.get_texts()]
    assert names[0] == f"a: variant a ({MODEL})" and names[1].endswith("did not finish")
    assert len(names) == len(rows)
    box, page = legend.get_window_extent(), fig.bbox
    assert page.y0 <= box.y0 and box.x1 <= page.x1
    note = fig._supxlabel.get_window_extent()
    assert note.y1 <= box.y0 or note.y0 >= box.y1  # the footnote does not run into the legend
