"""``ctxlab.plots`` for stages 3–5: offload, layers, cache, the bill, thresholds, the panel.

Like ``test_plots.py``: every chart is drawn from a real run on the reference stages, and the
test checks that what it shows is what the run did.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import sys
from collections.abc import Iterator

import pytest
from matplotlib.figure import Figure

from ctxlab import plots, runner, scenarios, use
from ctxlab.brain import Brain
from ctxlab.report.compare import compare
from ctxlab.sim import Simulator
from ctxlab.telemetry import cache_breaks
from ctxlab.tokens import CAVEAT
from ctxlab.workbook.router import FINDER

LONG, MODEL = "long-task", "claude-haiku-4-5"


@pytest.fixture(scope="module", autouse=True)
def reference() -> Iterator[None]:
    before = FINDER.selection
    use("solutions")
    yield
    use(before.impl, before.stage, before.chain)


@pytest.fixture(scope="module")
def truncated(reference: None) -> runner.RunResult:
    return runner.run(2, LONG, model=MODEL)


@pytest.fixture(scope="module")
def offloading(reference: None) -> runner.RunResult:
    return runner.run(3, LONG, model=MODEL)


@pytest.fixture(scope="module")
def pipeline(reference: None) -> runner.RunResult:
    return runner.run(5, "medium-results", model=MODEL)


def footnote(fig: Figure) -> str:
    return fig._supxlabel.get_text() if fig._supxlabel is not None else ""


def renders(fig: Figure) -> None:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    assert buffer.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"


def bar_heights(ax, color: str) -> list[float]:
    from matplotlib.colors import to_rgba

    return [p.get_height() for p in ax.patches if p.get_facecolor() == to_rgba(color)]


def test_offloaded_results_match_the_events(offloading: runner.RunResult) -> None:
    items = plots.offloaded(offloading)
    events = [e for r in offloading.records for e in r.compactions if e["layer"] == "offload"]
    assert len(items) == len(events) == offloading.summary.compactions_per_layer["offload"]
    for item, event in zip(items, events, strict=True):
        assert item.tool_use_id in item.path and item.path.endswith(".txt")
        assert f"{item.chars:,} characters" in event["trigger"]
        assert item.tokens_freed == event["tokens_freed"] > 0
        assert item.preview_chars < item.chars and item.tool == "run_command"
    reads = plots.recovery_reads(offloading)
    assert reads and {p for _, p in reads} <= {i.path for i in items}
    for turn, path in reads:  # the read happened after the file was written
        assert turn > next(i.turn for i in items if i.path == path)


def test_a_history_without_its_previews_is_refused(offloading: runner.RunResult) -> None:
    assert plots.offloaded(runner.run(2, "bugfix-small")) == []
    broken = dataclasses.replace(offloading, records=copy.deepcopy(offloading.records))
    broken.records[1].compactions.append({"layer": "offload", "tokens_freed": 1,
                                          "trigger": "9 characters over budget"})
    with pytest.raises(ValueError, match="rewrote"):
        plots.offloaded(broken)


def test_plot_offloads(offloading: runner.RunResult) -> None:
    items = plots.offloaded(offloading)
    fig = plots.plot_offloads(offloading)
    ax = fig.axes[0]
    widths = [p.get_width() for p in ax.patches]
    assert widths == [i.chars for i in items] + [i.preview_chars for i in items]
    notes = [t.get_text() for t in ax.texts]
    back = plots.recovery_reads(offloading)  # an offloaded file may be read back twice
    assert sum("read back at turn" in n for n in notes) == len({path for _, path in back})
    first = {path: turn for turn, path in reversed(back)}
    assert all(f"read back at turn {turn}" in " ".join(notes) for turn in first.values())
    assert f"{sum(i.chars for i in items):,} characters to disk" in ax.get_title()
    assert CAVEAT in footnote(fig)
    renders(fig)


def test_plot_refetch(truncated: runner.RunResult, offloading: runner.RunResult) -> None:
    fig = plots.plot_refetch({"stage 2": truncated, "stage 3": offloading})
    two, three = fig.axes[:2]
    for ax, run in ((two, truncated), (three, offloading)):
        s = plots.thrash_series(run)
        assert bar_heights(ax, "tab:red") == s.repeated
        reads = plots.recovery_reads(run)
        assert sum(bar_heights(ax, "tab:blue")) == len(reads)
        assert f"{s.rate[-1]:.0%}" in ax.get_title() and f"{len(reads)} recovery" in \
            ax.get_title()
    assert sum(bar_heights(two, "tab:red")) > sum(bar_heights(three, "tab:red"))
    offloads = [ln for ln in three.get_lines() if ln.get_label() == "a result offloaded"]
    assert len(offloads[0].get_xdata()) == offloading.summary.compactions_per_layer["offload"]
    assert any(t.get_text() == "truncate" for t in two.texts)
    renders(fig)


def test_layer_events_and_plot(pipeline: runner.RunResult, offloading: runner.RunResult) -> None:
    events = plots.layer_events(pipeline)
    assert [(e.layer, e.freed) for e in events] == [
        (c["layer"], c["tokens_freed"]) for r in pipeline.records for c in r.compactions]
    totals = plots.layer_totals(pipeline)
    assert {k: v[0] for k, v in totals.items()} == pipeline.summary.compactions_per_layer
    assert {k: v[1] for k, v in totals.items()} == pipeline.summary.tokens_freed_per_layer

    class Limits:
        window, compact_at, target, blocking_at = 200_000, 167_000, 100_200, 197_000

    fig = plots.plot_layers({"medium": pipeline, "long": offloading}, limits={"medium": Limits})
    medium, long = fig.axes
    bars = [p for p in medium.patches]
    fired = [r for r in pipeline.records if r.compactions and r.kind == "agent"]
    assert [b.get_height() for b in bars] == [c["tokens_freed"] for r in fired
                                              for c in r.compactions]
    assert bars[0].get_y() == fired[0].reported_input_tokens  # stacked on what was sent
    labels = [ln.get_label() for ln in medium.get_lines()]
    assert "pipeline runs above 167,000" in labels
    assert not any("pipeline runs" in ln.get_label() for ln in long.get_lines())
    assert "offload ×10" in long.get_title()
    renders(fig)


def test_cache_series_and_plot(pipeline: runner.RunResult) -> None:
    s = plots.cache_series(pipeline)
    accepted = [r for r in pipeline.records if r.error is None]
    assert s.read == [r.cache_read_tokens for r in accepted]
    assert [a + b + c for a, b, c in zip(s.read, s.write, s.uncached, strict=True)] == \
        [r.reported_input_tokens for r in accepted]
    assert s.read_share == pytest.approx(pipeline.summary.cache_read_share)
    assert [b["turn"] for b in s.breaks] == [b["turn"] for b in cache_breaks(accepted)]
    assert s.breaks and s.breaks[0]["cause"] == "compaction (expected)"
    fig = plots.plot_cache(pipeline)
    ax = fig.axes[0]
    assert bar_heights(ax, "tab:green") == s.read
    assert bar_heights(ax, "tab:orange") == s.write
    assert f"{s.read_share:.0%}" in ax.get_title()
    assert any(ln.get_label().startswith("cache break: compaction") for ln in ax.get_lines())
    renders(fig)


def test_prefix_reuse_drops_at_a_summary(reference: None) -> None:
    recorder = plots.CallRecorder(Brain(scenarios.load("constraint")))
    result = runner.run(4, "constraint", model="ctxlab-sim-32k",
                        simulator=Simulator(responder=recorder))
    reuse = plots.prefix_reuse(recorder.views)
    agent = [r for r in result.records if r.kind == "agent"]
    assert [r.messages for r in reuse] == [r.messages for r in agent]
    after = {r.turn for r in agent if any(c["layer"] == "summary" for c in r.compactions)}
    for r, record in zip(reuse[1:], agent[1:], strict=True):
        if record.turn in after:
            assert r.shared_messages == 0 and r.shared_tokens == 0
        else:
            assert r.shared_messages == reuse[r.request - 2].messages
            assert 0 < r.shared_tokens < r.tokens
    fig = plots.plot_prefix_reuse(reuse)
    ax = fig.axes[0]
    lost = [ln for ln in ax.get_lines() if ln.get_label().startswith("nothing in common")]
    assert list(lost[0].get_xdata()) == [r.request for r in reuse[1:] if r.shared_messages == 0]
    assert f"{len(after)} request(s) share nothing" in ax.get_title()
    renders(fig)


def test_plot_bill(reference: None) -> None:
    rows = compare(LONG)
    fig = plots.plot_bill(rows)
    tokens, cost = fig.axes[:2]
    assert [p.get_height() for p in tokens.patches] == [r["tokens_per_task"] for r in rows]
    assert [p.get_height() for p in cost.patches] == [r["cost_usd"] for r in rows]
    assert [t.get_text() for t in tokens.get_xticklabels()] == \
        [plots.bill_label(r) for r in rows]
    failed = [p for p in tokens.patches if p.get_hatch()]
    assert len(failed) == sum(not r["success"] for r in rows) >= 1  # stage 1 overflows
    assert sum("failed" in t.get_text() for t in tokens.texts) == len(failed)
    assert LONG in fig._suptitle.get_text()
    renders(fig)


def test_plot_occupancy_draws_the_band() -> None:
    from s5_pipeline import thresholds

    run = runner.run(5, "bugfix-small")
    fig = plots.plot_occupancy({"bugfix-small": run}, limits={"bugfix-small": thresholds(200_000)})
    ax = fig.axes[0]
    band = ax.patches[0].get_extents()  # the shaded band: 50 % to 65 % of the window
    assert ax.transData.inverted().transform([[0, band.y0], [0, band.y1]])[:, 1] == \
        pytest.approx([50, 65], abs=0.5)
    shown = [100 * r.occupancy for r in run.records if r.kind == "agent" and r.error is None]
    assert list(ax.lines[0].get_ydata()) == pytest.approx(shown)
    renders(fig)


def test_plot_thresholds() -> None:
    from s5_pipeline import thresholds

    limits = {"200K": thresholds(200_000), "1M": thresholds(1_000_000)}
    fig = plots.plot_thresholds(limits)
    notes = [t.get_text() for t in fig.axes[0].texts]
    assert any("167,000 = 83.5%" in n for n in notes)
    assert any("967,000 = 96.7%" in n for n in notes)
    widths = [p.get_width() for p in fig.axes[0].patches]
    assert sum(widths) == pytest.approx(200)  # each window's four zones fill 100 %
    renders(fig)


def _draw(result: runner.RunResult, values: dict) -> Figure:
    return plots.plot_context(result, ratio=None, title=str(values))


def test_options_panel_reruns_with_the_knobs() -> None:
    knobs = [plots.Knob("per_result", 50_000, 10_000, 100_000, 5_000),
             plots.Knob("per_message", 200_000, 50_000, 400_000, 10_000),
             plots.model_knob(MODEL)]
    panel = plots.OptionsPanel(3, LONG, knobs, draw=[_draw])
    assert panel.widget is not None and panel.result.layer.per_result == 50_000
    first = panel.figures[0]
    panel.controls["per_result"].value = 100_000  # every shard fits: nothing is offloaded
    panel.button.click()
    assert panel.figures[0] is not first and panel.result.layer.per_result == 100_000
    assert "offload" not in panel.result.summary.compactions_per_layer
    assert "100000" in panel.figures[0].axes[0].get_title()
    assert "per_result=100000" in panel.status
    panel.rerun(model="claude-sonnet-4-6")
    assert panel.controls["model"].value == "claude-sonnet-4-6"
    assert panel.result.records[0].model == "claude-sonnet-4-6"


@pytest.mark.shares_runs("no ipywidgets changes the panel's controls; no run imports it")
def test_options_panel_nests_options_and_works_without_ipywidgets(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import fails
    knobs = [plots.Knob("keep_recent", 0.1, 0.05, 0.5), plots.model_knob("ctxlab-sim-32k")]
    panel = plots.OptionsPanel(4, "constraint", knobs, draw=[_draw],
                               options=lambda v: {**v, "template": "free-form"})
    assert panel.widget is None and len(panel.figures) == 1
    assert panel.result.layer.compactor.keep_recent == 0.1
    assert not panel.result.layer.compactor.structured
    panel.rerun(keep_recent=0.3)
    assert panel.result.layer.compactor.keep_recent == 0.3
    panel._ipython_display_()
    assert "failed" in capsys.readouterr().out  # the free-form summary breaks the rule
    seeded = plots.OptionsPanel(4, "constraint", knobs, draw=[_draw], first=panel.result)
    assert seeded.result is panel.result and len(seeded.figures) == 1  # not run again
