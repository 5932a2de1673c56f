# Generated from solutions/s4_summarize/ptl.py — your exercise: edit it.
# `ctxlab workbook reset 4` regenerates it (your version is backed up first).
"""Exercise 4.2 — when the summary request is itself too long (guide §9.1, §14 stage 4 "坑 1").

The summarizer is sent the very history that grew too big, so its request can overflow the
window too. Two remedies, cheapest first. Images go before anything is sent: they tell a
summary nothing and cost about width × height / 750 tokens each. Then, while the API answers
``prompt is too long``, the oldest API rounds are dropped and the call is retried, a bigger
share each time — ``min(0.85, 0.25 + retry × 0.15)`` of the rounds, at most four retries —
because a request that 25 % did not save is further over than it looked. A request that just
fits is no better off: on Claude 4.5+ models the summary then stops at the window
(``model_context_window_exceeded``) with its end missing, so that too asks for fewer rounds.

What is dropped here is neither summarized nor kept: the one place in the whole system where
information is destroyed for good (offload can be read back, a summary keeps the gist). The
caller gets the count and reports it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anthropic
from s2_truncate import api_rounds

from .errors import SummaryCutOff, SummaryTooLong

Messages = list[dict[str, Any]]

MAX_PTL_RETRIES = 4
IMAGE_PLACEHOLDER = "[image removed before summarizing]"


@dataclass(frozen=True)
class Retried:
    """A summary and what had to be destroyed to get it."""

    summary: str
    rounds_dropped: int = 0
    messages_dropped: int = 0


def is_prompt_too_long(error: BaseException) -> bool:
    """Whether an API error is the ``prompt is too long`` rejection (R12)."""
    return isinstance(error, anthropic.BadRequestError) and "prompt is too long" in str(error)


NO_ROOM = (anthropic.BadRequestError, SummaryCutOff)
"""What a summary request without room raises: the API's rejection, or a cut-off summary."""


def left_no_room(error: BaseException) -> bool:
    """Whether the summary request had no room: rejected as too long (R12), or answered with a
    summary cut off at the window (§8.1). Either way a shorter history is the cure."""
    return is_prompt_too_long(error) or isinstance(error, SummaryCutOff)


def _without_images(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for block in blocks:
        if block.get("type") == "image":
            out.append({"type": "text", "text": IMAGE_PLACEHOLDER})
        elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            out.append(dict(block, content=_without_images(block["content"])))
        else:
            out.append(block)
    return out


def strip_images(messages: Messages) -> Messages:
    """A copy of ``messages`` with every image (also inside tool results) replaced by text."""
    return [m if isinstance(m["content"], str) else dict(m, content=_without_images(m["content"]))
            for m in messages]


def drop_oldest(messages: Messages, rounds: int) -> Messages:
    """``messages`` without their ``rounds`` oldest API rounds, led by a user note that says
    so (what is left starts with an assistant message, and the API wants a user message
    first)."""
    start = api_rounds(messages)[rounds][0]
    note = (f"[The {rounds} oldest rounds of this conversation were dropped unsummarized: "
            "they did not fit in the summarizer's window.]")
    return [{"role": "user", "content": [{"type": "text", "text": note}]}, *messages[start:]]


def ptl_retry(ask: Callable[[Messages], str], messages: Messages, *,
              retries: int = MAX_PTL_RETRIES) -> Retried:
    """Get a summary of ``messages`` from ``ask``, dropping the oldest rounds while too long.

    ``ask(history)`` sends the history with the summary request and returns the summary; a
    too-long request raises the SDK's ``BadRequestError``, a summary cut off at the window
    ``SummaryCutOff`` (both in ``NO_ROOM``); only those that ``left_no_room`` are handled.
    Strip the images first. On the n-th retry (n = 0, 1, …) send the messages without their
    ``ceil(min(0.85, 0.25 + n × 0.15) × rounds)`` oldest rounds (counted on the original),
    always keeping the newest round. Return the summary with the number of rounds dropped and
    of the messages they held; raise ``SummaryTooLong`` when the retries are used up or a
    retry would drop nothing more.
    """
    raise NotImplementedError("Exercise 4.2 — ptl_retry(): see notebooks/04_summarize.ipynb")
