"""Exercises 2.2 and 2.3 — API rounds and the safe cut (guide §9.2)."""

from __future__ import annotations

import pytest
from s2_truncate import api_rounds, find_safe_cut


def _use(tool_id: str) -> dict:
    return {"type": "tool_use", "id": tool_id, "name": "read_file", "input": {"path": tool_id}}


def _result(tool_id: str) -> dict:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": "r" * 40}


TEXT = {"type": "text", "text": "t" * 40}
THINKING = {"type": "thinking", "thinking": "hmm", "signature": "s"}

HISTORY = [
    {"role": "user", "content": [TEXT]},                              # 0 task
    {"role": "assistant", "content": [THINKING, _use("a")]},          # 1 round A
    {"role": "user", "content": [_result("a")]},                      # 2
    {"role": "assistant", "content": [_use("b"), _use("c")]},         # 3 round B: parallel
    {"role": "user", "content": [_result("b"), _result("c")]},        # 4
    {"role": "assistant", "content": [TEXT]},                         # 5 round C: split...
    {"role": "assistant", "content": [_use("d")]},                    # 6 ...same response
    {"role": "user", "content": [_result("d")]},                      # 7
]


def _blocks(messages: list[dict]) -> int:
    return sum(len(m["content"]) for m in messages)


@pytest.mark.exercise("2.2")
@pytest.mark.checklist("B.13")
def test_rounds_keep_calls_with_their_results() -> None:
    assert api_rounds(HISTORY) == [(0, 1), (1, 3), (3, 5), (5, 8)]


@pytest.mark.exercise("2.2")
def test_rounds_of_a_lone_task() -> None:
    assert api_rounds(HISTORY[:1]) == [(0, 1)]


@pytest.mark.exercise("2.3")
def test_cut_is_the_first_round_start_that_fits() -> None:
    # task (1 block) + round C (3 blocks) = 4; with round B (4 more) = 8
    assert find_safe_cut(HISTORY, 5, _blocks) == 5
    assert find_safe_cut(HISTORY, 9, _blocks) == 3
    assert find_safe_cut(HISTORY, 100, _blocks) == 1


@pytest.mark.exercise("2.3")
def test_cut_keeps_the_last_round_when_nothing_fits() -> None:
    assert find_safe_cut(HISTORY, 1, _blocks) == 5


@pytest.mark.exercise("2.3")
@pytest.mark.checklist("B.13")
def test_every_cut_leaves_a_history_the_api_accepts() -> None:
    """Checked by the simulated API itself (``count_tokens`` validates the messages), not by
    exercise 2.4's ``first_violation``: 2.2 and 2.3 turn green on their own (the stage-2
    interview kata)."""
    from ctxlab.sim import Simulator, make_client

    client = make_client(Simulator())
    for budget in range(1, 14):
        cut = find_safe_cut(HISTORY, budget, _blocks)
        client.messages.count_tokens(model="claude-haiku-4-5",
                                     messages=HISTORY[:1] + HISTORY[cut:])  # 400 if invalid
