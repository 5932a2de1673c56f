"""Exercise 1.2 — the chars/4 estimate (guide §9.5)."""

from __future__ import annotations

import pytest
from s1_loop import estimate_tokens

pytestmark = pytest.mark.exercise("1.2")


def test_text_blocks_and_string_content() -> None:
    messages = [{"role": "user", "content": "a" * 40},
                {"role": "assistant", "content": [{"type": "text", "text": "b" * 20}]}]
    assert estimate_tokens(messages) == 15


def test_the_quotient_is_rounded_up() -> None:
    """Notebook 01 and the docstring: characters / 4, rounded up — a started token counts."""
    assert [estimate_tokens([{"role": "user", "content": "a" * n}]) for n in (1, 4, 5, 9)] == \
        [1, 1, 2, 3]


def test_tool_use_and_tool_result_count() -> None:
    use = {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "app.py"}}
    result = {"type": "tool_result", "tool_use_id": "t1",
              "content": [{"type": "text", "text": "x" * 400}]}
    alone = estimate_tokens([{"role": "user", "content": [result]}])
    assert alone == 100
    both = estimate_tokens([{"role": "assistant", "content": [use]},
                            {"role": "user", "content": [result]}])
    assert both > alone


def test_system_and_tools_are_part_of_the_request() -> None:
    messages = [{"role": "user", "content": "hi"}]
    system = [{"type": "text", "text": "s" * 400}]
    tools = [{"name": "read_file", "description": "d" * 400, "input_schema": {}}]
    base = estimate_tokens(messages)
    assert estimate_tokens(messages, system) == base + 100
    assert estimate_tokens(messages, system, tools) > base + 200
