"""Stage 4's one prompt-cache breakpoint, on the newest message (guide §6.4, §6.5)."""

from __future__ import annotations

import pytest
from s4_summarize.cache import mark_newest_message


def _breakpoints(messages):
    return [(i, j) for i, m in enumerate(messages) if isinstance(m["content"], list)
            for j, b in enumerate(m["content"]) if "cache_control" in b]


@pytest.mark.checklist("B.8")
def test_one_breakpoint_on_the_newest_cacheable_block() -> None:
    history = [
        {"role": "user", "content": "the task"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok",
                                           "cache_control": {"type": "ephemeral"}}]},
        {"role": "user", "content": [{"type": "text", "text": "more"},
                                     {"type": "text", "text": ""}]},
    ]
    marked = mark_newest_message(history)
    assert _breakpoints(marked) == [(2, 0)]  # the empty text cannot carry it
    assert "cache_control" in history[1]["content"][0]  # the input is left as it was
    assert marked[0] is history[0]


def test_a_string_message_becomes_a_marked_block() -> None:
    marked = mark_newest_message([{"role": "user", "content": "the task"}])
    assert marked[0]["content"] == [{"type": "text", "text": "the task",
                                     "cache_control": {"type": "ephemeral"}}]
