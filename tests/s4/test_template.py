"""Exercise 4.1 — the summary request: a slot for everything that must survive (§12.4, §12.3)."""

from __future__ import annotations

import pytest
from s4_summarize import EmptySummary, ask_for_summary, read_summary, summary_prompt
from s4help import LATER, RULE, TASK, make_history

from ctxlab.brain.request import asks_for_summary, parse

SLOTS = {"goal", "files", "errors", "user", "pending", "current", "next"}


@pytest.mark.exercise("4.1")
def test_the_template_has_every_slot_and_asks_for_a_scratchpad() -> None:
    prompt = summary_prompt()
    request = parse(prompt)
    assert asks_for_summary(prompt)
    assert {section.kind for section in request.sections} >= SLOTS
    assert request.analysis and request.tagged


@pytest.mark.exercise("4.1")
def test_free_form_is_one_plain_request() -> None:
    prompt = summary_prompt(structured=False)
    assert asks_for_summary(prompt)
    assert parse(prompt).sections == ()


@pytest.mark.exercise("4.1")
def test_a_structured_summary_quotes_every_user_message(session_on) -> None:
    summary = ask_for_summary(session_on(), make_history(6, follow_up_at=3), summary_prompt())
    for text in (TASK, RULE, LATER):
        assert text in summary
    assert "<analysis>" not in summary and "<summary>" not in summary


@pytest.mark.exercise("4.1")
@pytest.mark.checklist("B.28")
def test_a_free_form_summary_loses_the_rule(session_on) -> None:
    summary = ask_for_summary(session_on(), make_history(6), summary_prompt(structured=False))
    assert RULE not in summary and "config.py" not in summary


def test_read_summary_drops_the_scratchpad() -> None:
    reply = "<analysis>\nthinking out loud\n</analysis>\n\n<summary>\n1. Goal: fix it\n</summary>"
    assert read_summary(reply) == "1. Goal: fix it"
    assert read_summary("Just prose.") == "Just prose."


@pytest.mark.parametrize("reply", ["", "   ", "<analysis>only thoughts</analysis>",
                                   "<summary>\n</summary>",
                                   "<analysis>a scratchpad that never ends"])
def test_an_empty_summary_is_a_structural_failure(reply: str) -> None:
    with pytest.raises(EmptySummary):
        read_summary(reply)
