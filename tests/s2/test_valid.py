"""Exercise 2.4 — assert_messages_valid speaks the API's language (guide §9.2)."""

from __future__ import annotations

import anthropic
import pytest
from s2_truncate import InvalidHistory, assert_messages_valid, first_violation

from ctxlab.sim import Simulator, make_client

pytestmark = pytest.mark.exercise("2.4")

USE = {"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": {"path": "x"}}
USE_B = {"type": "tool_use", "id": "toolu_b", "name": "read_file", "input": {"path": "y"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_a", "content": "ok"}
RESULT_B = {"type": "tool_result", "tool_use_id": "toolu_b", "content": "ok"}
TEXT = {"type": "text", "text": "go on"}

BROKEN = {
    "first message from the assistant": [{"role": "assistant", "content": [TEXT]}],
    "orphan result at the start": [{"role": "user", "content": [RESULT]}],
    "result for an unknown id": [{"role": "user", "content": [TEXT]},
                                 {"role": "assistant", "content": [USE]},
                                 {"role": "user", "content": [RESULT, RESULT_B]}],
    "unanswered parallel call": [{"role": "user", "content": [TEXT]},
                                 {"role": "assistant", "content": [USE, USE_B]},
                                 {"role": "user", "content": [RESULT]}],
    "text before the results": [{"role": "user", "content": [TEXT]},
                                {"role": "assistant", "content": [USE]},
                                {"role": "user", "content": [TEXT, RESULT]}],
    "results split across a merged turn": [{"role": "user", "content": [TEXT]},
                                           {"role": "assistant", "content": [USE]},
                                           {"role": "user", "content": [TEXT]},
                                           {"role": "user", "content": [RESULT]}],
}


def _api_message(messages: list[dict]) -> str | None:
    client = make_client(Simulator())
    try:
        client.messages.create(model="claude-haiku-4-5", max_tokens=10, messages=messages)
    except anthropic.BadRequestError as error:
        return error.api_message
    return None


@pytest.mark.parametrize("case", sorted(BROKEN))
@pytest.mark.checklist("B.14")
def test_same_wording_as_the_api(case: str) -> None:
    messages = BROKEN[case]
    expected = _api_message(messages)
    assert expected is not None
    assert first_violation(messages) == expected
    with pytest.raises(InvalidHistory, match="messages"):
        assert_messages_valid(messages)


def test_valid_history_passes() -> None:
    messages = [{"role": "user", "content": [TEXT]},
                {"role": "assistant", "content": [USE, USE_B]},
                {"role": "user", "content": [RESULT, RESULT_B, TEXT]},
                {"role": "assistant", "content": [TEXT]},
                {"role": "user", "content": "thanks"}]
    assert first_violation(messages) is None
    assert_messages_valid(messages)
