"""Exercise 4.2 — a summary request that is itself too long (§9.1): images first, then the
oldest rounds, a bigger share on each retry, four retries at most."""

from __future__ import annotations

import math

import anthropic
import pytest
from s2_truncate import assert_messages_valid
from s4_summarize import (
    FREE_FORM,
    SummaryCutOff,
    SummaryTooLong,
    ask_for_summary,
    ptl_retry,
    strip_images,
)
from s4help import api_error, make_history, too_long

from ctxlab.scenarios.images import image_block
from ctxlab.scenarios.schema import Image
from ctxlab.tokens import count_messages

pytestmark = pytest.mark.exercise("4.2")

ROUNDS = 12  # plus the task: 13 API rounds


class Summarizer:
    """A fake ``ask``: records what it is sent, rejects anything over ``limit`` tokens."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.sent: list[list[dict]] = []

    def __call__(self, history: list[dict]) -> str:
        self.sent.append(history)
        total = count_messages(history)
        if total > self.limit:
            raise too_long(total, self.limit)
        return "the summary"


def test_a_request_that_fits_is_sent_once_unchanged() -> None:
    messages = make_history(ROUNDS)
    ask = Summarizer(limit=10**9)
    result = ptl_retry(ask, messages)
    assert (result.summary, result.rounds_dropped, result.messages_dropped) == \
        ("the summary", 0, 0)
    assert ask.sent == [messages]


@pytest.mark.checklist("B.15")
def test_each_retry_drops_a_bigger_share_of_the_oldest_rounds() -> None:
    messages = make_history(ROUNDS, result_chars=2_000)
    ask = Summarizer(limit=count_messages(messages[-5:]) + 50)  # fits after 10 of 13 rounds
    result = ptl_retry(ask, messages)
    expected = [math.ceil(min(0.85, 0.25 + n * 0.15) * (ROUNDS + 1)) for n in range(4)]
    assert expected == [4, 6, 8, 10]
    assert [len(h) for h in ask.sent] == [len(messages)] + [len(messages) - 2 * d + 2
                                                             for d in expected]
    assert result.rounds_dropped == 10 and result.messages_dropped == 2 * 10 - 1
    for history in ask.sent:
        assert_messages_valid(history)
    assert ask.sent[-1][1:] == messages[19:]
    assert "10 oldest rounds" in ask.sent[-1][0]["content"][0]["text"]


@pytest.mark.checklist("B.15")
def test_after_four_retries_it_gives_up() -> None:
    ask = Summarizer(limit=10)
    with pytest.raises(SummaryTooLong):
        ptl_retry(ask, make_history(ROUNDS))
    assert len(ask.sent) == 5


def test_the_newest_round_is_never_dropped() -> None:
    messages = make_history(2)  # 3 rounds: drop 1 (the task), then 2, then nothing is left
    ask = Summarizer(limit=10)
    with pytest.raises(SummaryTooLong):
        ptl_retry(ask, messages)
    assert len(ask.sent) == 3
    assert ask.sent[-1][1:] == messages[-2:]


def test_a_summary_cut_off_at_the_window_also_drops_the_oldest_rounds() -> None:
    """No room for the output is the same trouble as no room for the input (§8.1, §9.1)."""
    messages = make_history(ROUNDS, result_chars=2_000)
    sent: list[list[dict]] = []

    def ask(history: list[dict]) -> str:
        sent.append(history)
        if len(sent) < 3:
            raise SummaryCutOff("the summary stopped early (model_context_window_exceeded)")
        return "the summary"

    result = ptl_retry(ask, messages)
    assert result.summary == "the summary" and result.rounds_dropped == 6
    assert [len(h) for h in sent] == [len(messages), len(messages) - 6, len(messages) - 10]


def test_on_the_simulator_a_request_that_just_fits_gets_a_cut_off_summary(session_on) -> None:
    """Grow the history until the summary no longer comes back whole: before the API rejects
    the request (R12), the summary stops at the window (``model_context_window_exceeded``),
    which ``ask_for_summary`` refuses; the retry then makes room and gets it whole."""
    session = session_on()

    def outcome(chars: int) -> Exception | None:
        try:
            ask_for_summary(session, make_history(ROUNDS, result_chars=chars), FREE_FORM)
        except (SummaryCutOff, anthropic.BadRequestError) as error:
            return error
        return None

    fits, fails = 1_000, 16_000  # a summary comes back whole at the one, not at the other
    assert outcome(fits) is None and outcome(fails) is not None
    while fails - fits > 1:  # the smallest history that no longer gets a whole summary
        middle = (fits + fails) // 2
        fits, fails = (middle, fails) if outcome(middle) is None else (fits, middle)
    assert isinstance(outcome(fails), SummaryCutOff), outcome(fails)
    messages = make_history(ROUNDS, result_chars=fails)
    result = ptl_retry(lambda h: ask_for_summary(session, h, FREE_FORM), messages)
    assert result.rounds_dropped > 0 and result.summary.strip()


def test_other_errors_are_not_its_business() -> None:
    def ask(history: list[dict]) -> str:
        raise api_error(anthropic.BadRequestError, 400, "messages.1: unexpected `tool_use_id`")

    with pytest.raises(anthropic.BadRequestError):
        ptl_retry(ask, make_history(3))


def test_images_are_stripped_before_the_first_attempt() -> None:
    messages = make_history(3)
    picture = image_block(Image(64, 64, "#336699"))
    messages[0] = dict(messages[0], content=[*messages[0]["content"], picture])
    messages[2] = dict(messages[2], content=[dict(messages[2]["content"][0],
                                                  content=[{"type": "text", "text": "shot"},
                                                           picture])])
    ask = Summarizer(limit=10**9)
    ptl_retry(ask, messages)
    sent = str(ask.sent[0])
    assert "'image'" not in sent and sent.count("[image removed") == 2
    assert messages[0]["content"][-1] is picture  # the caller's history is left alone


def test_on_the_simulator_images_alone_would_overflow_the_window(session_on) -> None:
    session = session_on()
    screenshot = image_block(Image(1568, 1045, "#2e7d32"))  # about 2,185 tokens each
    messages = make_history(4)
    messages[0] = dict(messages[0], content=[*messages[0]["content"], *[screenshot] * 16])
    prompt = FREE_FORM  # a constant, not exercise 4.1's template: 4.2 is graded on its own
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        ask_for_summary(session, messages, prompt)
    result = ptl_retry(lambda sent: ask_for_summary(session, sent, prompt), messages)
    assert result.rounds_dropped == 0 and result.messages_dropped == 0  # no round lost:
    assert result.summary.strip()  # stripping the images was enough for a summary to come back
    assert strip_images(messages)[0]["content"][2]["type"] == "text"
