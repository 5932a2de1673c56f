"""Exercise 2.1 — naive truncation, and the API error it causes (guide §14 stage 2, §9.2)."""

from __future__ import annotations

import pytest
from s2_truncate import naive_truncate

from ctxlab.runner import run
from ctxlab.sim import wording

pytestmark = pytest.mark.exercise("2.1")


def _count(messages: list[dict]) -> int:
    return sum(len(m["content"]) for m in messages)


def test_drops_four_oldest_until_under_the_ratio() -> None:
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": "x" * 10}
                for i in range(12)]
    kept = naive_truncate(messages, _count, window=10, ratio=0.8)
    assert kept == messages[8:]
    assert len(messages) == 12  # the input list is not modified


@pytest.mark.parametrize(("count", "drop", "left"), [(6, 4, 2), (4, 4, 4), (3, 4, 3), (7, 3, 1)])
def test_stops_when_drop_or_fewer_remain(count: int, drop: int, left: int) -> None:
    """The docstring's rule, over the threshold to the end: more than ``drop`` left → drop
    ``drop`` more; ``drop`` or fewer → keep them all (not "keep only the last one")."""
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": "x" * 10}
                for i in range(count)]
    assert naive_truncate(messages, _count, window=1, drop=drop) == messages[count - left:]


def test_no_change_under_the_threshold() -> None:
    messages = [{"role": "user", "content": "x" * 10}] * 3
    assert naive_truncate(messages, _count, window=100) == messages


def test_naive_truncation_orphans_a_tool_result_and_the_api_says_so() -> None:
    result = run(2, "long-task", model="claude-haiku-4-5", layer_options={"naive": True})
    assert result.summary.error is not None
    assert result.summary.error["message"] == wording.RESULT_WITHOUT_USE.format(i=0)
