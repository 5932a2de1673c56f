"""The live dashboard, the progress bar and error explanations (§2, §14 stage 1 step 4)."""

from __future__ import annotations

import io

from rich.console import Console

from ctxlab.telemetry import record_from_usage
from ctxlab.view import Dashboard, explain_error, parse_prompt_too_long, progress


def console(*, terminal: bool) -> Console:
    return Console(record=True, width=160, file=io.StringIO(), force_terminal=terminal)


def text_of(c: Console) -> str:
    """Everything printed so far, box lines dropped and whitespace collapsed."""
    text = c.export_text(clear=False).replace("│", " ").replace("┃", " ")
    return " ".join(text.split())


def turn(n: int, total_input: int):
    return record_from_usage(n, "agent", {"input_tokens": total_input, "output_tokens": 100},
                             model="claude-haiku-4-5", messages_sent=2 * n,
                             estimated_tokens=total_input // 2)


def test_dashboard_off_terminal_prints_only_a_final_table() -> None:
    c = console(terminal=False)
    with Dashboard(console=c, title="bugfix-small") as dash:
        dash.update(turn(1, 10_000))
        dash.update(turn(2, 150_000))
        assert c.export_text(clear=False) == ""  # nothing live while the run goes on
    text = text_of(c)
    assert "bugfix-small" in text and "150,000" in text and "75.0%" in text
    assert "calls 2 · tokens so far 160,200" in text
    assert "peak occupancy 75.0%" in text


def test_dashboard_render_has_latest_turns_occupancy_bar_and_totals() -> None:
    dash = Dashboard(console=console(terminal=False), last=2)
    for n in range(1, 5):
        dash.update(turn(n, 1000 * n))
    view = dash.render()
    assert view.renderables[0].row_count == 2  # only the latest two calls
    c = console(terminal=False)
    c.print(view)
    text = text_of(c)
    assert "4,000" in text and "3,000" in text
    assert "occupancy" in text and "2.0% (4,000 of 200,000 tokens)" in text
    assert "calls 4 · tokens so far 10,400" in text


def test_dashboard_on_a_terminal_runs_live_and_still_ends_with_the_table() -> None:
    c = console(terminal=True)
    with Dashboard(console=c, refresh_per_second=50) as dash:
        assert dash._live is not None
        dash.update(turn(1, 42_000))
    assert dash._live is None
    assert "42,000" in text_of(c) and "tokens so far 42,100" in text_of(c)


def test_progress_yields_every_item_and_draws_only_on_a_terminal() -> None:
    quiet = console(terminal=False)
    assert list(progress(iter(range(5)), "replaying", console=quiet)) == [0, 1, 2, 3, 4]
    assert text_of(quiet) == ""
    loud = console(terminal=True)
    assert list(progress(["a.jsonl", "b.jsonl"], "replaying logs", console=loud)) == [
        "a.jsonl", "b.jsonl"]
    assert "replaying logs" in text_of(loud) and "2/2" in text_of(loud)


def test_explain_prompt_too_long_shows_both_numbers_and_points_to_stage_2() -> None:
    message = "prompt is too long: 210000 tokens > 200000 maximum"
    assert parse_prompt_too_long(message) == (210000, 200000)
    c = console(terminal=False)
    c.print(explain_error("invalid_request_error", message))
    text = text_of(c)
    assert "overflowed" in text
    assert "sent 210,000 tokens > window 200,000 tokens (over by 10,000, 5.0%)" in text
    assert "stage 2" in text and "truncat" in text


def test_explain_transient_orphan_and_other_errors() -> None:
    for error_type in ("rate_limit_error", "overloaded_error"):
        c = console(terminal=False)
        c.print(explain_error(error_type, "Overloaded"))
        assert "transient" in text_of(c) and "retries" in text_of(c)
    c = console(terminal=False)
    c.print(explain_error("invalid_request_error", "messages.3.content.0: unexpected "
                          "`tool_use_id` found in `tool_result` blocks: toolu_1."))
    assert "§9.2" in text_of(c) and "assert_messages_valid" in text_of(c)
    c = console(terminal=False)
    c.print(explain_error("authentication_error", "invalid x-api-key"))
    text = text_of(c)
    assert "authentication_error: invalid x-api-key" in text
    assert "transient" not in text and "stage 2" not in text
    assert parse_prompt_too_long("invalid x-api-key") is None
