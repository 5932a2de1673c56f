"""Rendering the per-call and per-run tables, with the tokenizer caveat (§2, §12.1)."""

from __future__ import annotations

import pytest
from rich.console import Console

from ctxlab.telemetry import RunSummary, record_from_usage, tool_call
from ctxlab.tokens import CAVEAT
from ctxlab.view import summary_table, turn_table

USAGE = {"input_tokens": 2048, "output_tokens": 500, "cache_read_input_tokens": 1800,
         "cache_creation_input_tokens": 248,
         "cache_creation": {"ephemeral_5m_input_tokens": 148, "ephemeral_1h_input_tokens": 100}}
READ = tool_call("read_file", {"path": "a.py"})


def render(renderable) -> str:
    console = Console(record=True, width=160, force_terminal=False)
    console.print(renderable)
    text = console.export_text().replace("│", " ").replace("┃", " ")
    return " ".join(text.split())  # cells and wrapped lines read as one line of words


def records():
    return [
        record_from_usage(1, "agent", USAGE, model="claude-haiku-4-5", messages_sent=3,
                          estimated_tokens=3333, tool_calls=[READ]),
        record_from_usage(2, "agent", USAGE, model="claude-haiku-4-5", messages_sent=5,
                          estimated_tokens=3500, tool_calls=[READ], thrash=True,
                          compactions=[{"layer": "snip", "tokens_freed": 12000,
                                        "trigger": "[auto] 80%"},
                                       {"layer": "microcompact", "tokens_freed": 3000,
                                        "trigger": "repays", "freed_error": 1006}]),
        record_from_usage(3, "summary", None, model="claude-haiku-4-5", messages_sent=5,
                          estimated_tokens=3500,
                          error={"type": "overloaded_error", "message": "Overloaded"}),
    ]


def test_turn_table_shows_estimate_reported_cost_occupancy_and_caveat() -> None:
    text = render(turn_table(records(), title="stage 1"))
    assert " ".join(CAVEAT.split()) in text
    for expected in ("stage 1", "3,333", "4,096", "1,800", "248", "500", "$0.0051", "2.0%",
                     "summary"):
        assert expected in text
    # events: bracketed trigger text survives rich markup, thrash and the error type show
    assert "snip -12,000 ([auto] 80%)" in text
    assert "microcompact -3,000 ±1,006 (repays)" in text  # an estimate, with its band
    assert "thrash" in text and "overloaded_error" in text


def test_summary_table_puts_runs_side_by_side() -> None:
    recs = records()
    naive = RunSummary.from_records(recs, stage=1, scenario="long-task", success=False,
                                    error={"type": "overloaded_error", "message": "Overloaded"})
    tiered = RunSummary.from_records(recs[:1], stage=5, scenario="long-task", success=True)
    text = render(summary_table([naive, tiered], title="total bill"))
    assert "stage 1" in text and "stage 5" in text
    assert "tokens per task 9,192 4,596" in text
    assert "duplicate call rate 50.0% 0.0%" in text
    assert "snip: 12,000" in text
    assert "§12.1" in text and " ".join(CAVEAT.split()) in text


def test_summary_table_accepts_a_single_run_and_flags_pathological_thrash() -> None:
    read = [record_from_usage(t, "agent", USAGE, model="claude-haiku-4-5", messages_sent=t,
                              estimated_tokens=1, tool_calls=[READ], thrash=t > 1)
            for t in (1, 2, 3)]
    s = RunSummary.from_records(read, stage=2, scenario="chat-heavy", success=True)
    text = render(summary_table(s))
    assert "longest unchanged run 3 (≥3)" in text
    assert "cache read share 43.9%" in text


def test_the_compact_bill_says_why_a_run_failed() -> None:
    from ctxlab.view.tables import runs_table

    failed = RunSummary.from_records(records(), stage=1, scenario="long-task", success=False,
                                     error={"type": "invalid_request_error", "message":
                                            "prompt is too long: 212391 tokens > 200000 maximum"})
    text = render(runs_table([failed]))
    assert "stage 1: error: prompt is too long;" in text


@pytest.mark.shares_runs("capsys reads the command's report")
def test_compare_says_the_baseline_runs_on_a_1m_window(capsys) -> None:
    from ctxlab.cli import main
    from ctxlab.report.compare import LARGE_WINDOW_MODEL

    assert main(["compare", "--scenario", "bugfix-small"]) == 0
    out = capsys.readouterr().out
    assert f"keep all: no context layer, on {LARGE_WINDOW_MODEL} (1M window)" in out
