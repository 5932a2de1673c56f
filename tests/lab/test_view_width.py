"""Every table reads at 80 columns and at 160: the layout follows the terminal (DESIGN §6).

At 80 columns the compact layouts apply (fewer, shorter columns; events and notes on lines of
their own); at 160 the full ones. In both, no cell is cut (``…``) and no figure is split.
"""

from __future__ import annotations

import pytest
from rich.table import Table
from widthcheck import WIDTHS, assert_readable, recording, rendered

from ctxlab import models
from ctxlab.cli import main
from ctxlab.commands.accept_cmd import acceptance_table
from ctxlab.report.accept import FIRES, NO_CHANCE, WIRED_WRONG
from ctxlab.telemetry import RunSummary, TurnRecord, record_from_usage, tool_call
from ctxlab.view import Dashboard, summary_view, turn_view
from ctxlab.view.tables import fmt_tokens, fmt_usd

READ = tool_call("read_file", {"path": "a.py"})
BIG = "claude-sonnet-4-6"  # a 1M window: the widest figures a run can show


def call(turn: int, total: int, **extra) -> TurnRecord:
    usage = {"input_tokens": total // 10, "output_tokens": 12_345,
             "cache_read_input_tokens": total - total // 10 - 4_321,
             "cache_creation_input_tokens": 4_321}
    return record_from_usage(turn, "agent", usage, model=BIG, messages_sent=turn * 2,
                             estimated_tokens=total + 99_999, tool_calls=[READ], **extra)


def calls() -> list[TurnRecord]:
    records = [call(t, 90_000 * t) for t in range(1, 12)]
    records[3] = call(4, 360_000, thrash=True, compactions=[
        {"layer": "microcompact", "tokens_freed": 123_456,
         "trigger": "[auto] 80% of the window, 61 old results"}])
    records.append(record_from_usage(12, "summary", None, model=BIG, messages_sent=24,
                                     estimated_tokens=1_000,
                                     error={"type": "overloaded_error", "message": "Overloaded"}))
    return records


def call_figures(records: list[TurnRecord]) -> list[str]:
    return [f for r in records for f in (fmt_tokens(r.estimated_tokens),
                                         fmt_tokens(r.reported_input_tokens),
                                         fmt_tokens(r.cache_read_tokens), fmt_usd(r.cost_usd))]


@pytest.mark.parametrize("width", WIDTHS)
def test_the_per_call_table_fits_and_keeps_every_figure(width: int) -> None:
    records = calls()
    text = rendered(width, turn_view(recording(width), records, title="stage 5 · long-task"))
    assert_readable(text, width, call_figures(records))
    assert "1,089,999" in text  # a 1M-window call: seven digits, never `1,0…`
    event = "microcompact -123,456 ([auto] 80% of the window, 61 old results)"
    flat = " ".join(text.replace("│", " ").split())
    assert event in flat and "thrash" in flat and "overloaded_error" in flat
    if width == 80:  # events and the summary call on lines of their own, under the table
        lines = text.splitlines()
        assert any(line.startswith("turn 4: microcompact -123,456") for line in lines)
        assert any(line.startswith("turn 12 (summary call): overloaded_error") for line in lines)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_dashboard_live_and_final_views_fit(width: int) -> None:
    console = recording(width)
    with Dashboard(console=console, title="stage 5 · long-task", last=4) as board:
        for record in calls():
            board.update(record)
        live = rendered(width, board.render())
    assert_readable(live, width, call_figures(calls()[-4:]) + ["1,000,000"])
    final = console.export_text()
    assert_readable(final, width, call_figures(calls()))
    assert "tokens so far" in final


def runs() -> list[RunSummary]:
    records = calls()
    done = dict(scenario="long-task", success=True)
    out = [RunSummary.from_records(records, stage="keep-everything", **done)]
    out += [RunSummary.from_records(records[: 3 + n], stage=n, **done) for n in range(2, 6)]
    out.insert(0, RunSummary.from_records(records, stage=1, scenario="long-task", success=False,
                                          error={"type": "invalid_request_error",
                                                 "message": "prompt is too long"}))
    return out


@pytest.mark.parametrize("width", WIDTHS)
def test_the_total_bill_of_six_runs_fits(width: int) -> None:
    bill = runs()
    text = rendered(width, summary_view(recording(width), bill, title="The total bill"))
    figures = [f for s in bill for f in (fmt_tokens(s.tokens_per_task), fmt_usd(s.cost_usd))]
    assert_readable(text, width, figures + ["123,456"])
    assert "prompt is too long" in text and "§12.1" in " ".join(text.split())


@pytest.mark.parametrize("width", WIDTHS)
def test_one_run_bill_fits(width: int) -> None:
    one = runs()[-1]
    text = rendered(width, summary_view(recording(width), one))
    assert_readable(text, width, [fmt_tokens(one.tokens_per_task), fmt_usd(one.cost_usd)])
    assert "tokens per task" in text


@pytest.mark.parametrize("width", WIDTHS)
def test_models_never_cut_an_id(width: int, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["models"]) == 0
    text = capsys.readouterr().out
    assert_readable(text, width, [m.id for m in models.MODELS]
                    + [f"{m.context_window:,}" for m in models.MODELS])
    flat = " ".join(text.replace("│", " ").split())
    assert all(m.note in flat for m in models.MODELS if m.note)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_acceptance_table_fits(width: int) -> None:
    report = {"passed": True, "layers": [
        {"layer": layer, "scenario": "medium-results", "why": "many medium results; snip "
         "disabled so clearing must do the work", "triggers": 12, "freed_tokens": 1_234_567,
         "verdict": verdict} for layer, verdict in (("offload", FIRES), ("microcompact",
                                                    WIRED_WRONG), ("blocking", NO_CHANCE))]}
    table = acceptance_table(report)
    assert isinstance(table, Table)
    assert_readable(rendered(width, table), width,
                    ["1,234,567", "microcompact", WIRED_WRONG, NO_CHANCE])


@pytest.mark.shares_runs("COLUMNS sets the report's width; no run reads it")
@pytest.mark.parametrize("argv", [["demo"], ["example", "ch8.3"], ["cachecost", "--turns", "6"]])
def test_reports_read_at_80_columns(argv: list[str], monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(argv) == 0
    assert_readable(capsys.readouterr().out, 80)
