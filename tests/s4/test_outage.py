"""A summarizer outage, with and without the circuit breaker (§9.4).

The faults hit only summary requests (the ones sent with ``tool_choice: none``); the agent's own
requests go through. With the breaker, three failed compactions open it and the run goes on
with local truncation, calling no model; without it, every turn past the threshold calls the
summarizer again.
"""

from __future__ import annotations

import pytest

from ctxlab import outage
from ctxlab.runner import RunResult


def _outage(failures: int, *, breaker: bool) -> RunResult:
    return outage.run(4, "chat-heavy", failures, layer_options={"breaker": breaker})


@pytest.mark.checklist("B.16", "B.17")
def test_with_the_breaker_three_calls_then_local_truncation() -> None:
    result = _outage(1_000, breaker=True)  # a lasting outage: the interview kit's (stage 4, Q4)
    assert result.summary.error is None
    assert result.summary.summary_calls == 3
    assert set(result.summary.compactions_per_layer) == {"truncate"}  # no summary after that
    # The fallback calls no model and keeps no summary of what it cuts: the user's early
    # request about svc-121 (which has no manifest, so no tool can fetch it again) is gone,
    # and the task is not done — what stage 5 keeps the user's own words for (§12.3).
    said = [b.get("text", "") for m in result.messages if m["role"] == "user"
            for b in m["content"] if b.get("type") == "text"]
    assert not any("svc-121" in text for text in said)
    assert not result.summary.success


def test_without_it_every_turn_calls_again_until_the_outage_ends() -> None:
    result = _outage(5, breaker=False)
    assert result.summary.success, result.problems
    assert result.summary.summary_calls == 6  # five empty answers, then a summary
    assert result.summary.compactions_per_layer == {"summary": 1}


def test_without_it_an_outage_that_lasts_ends_in_a_typed_error() -> None:
    result = _outage(1_000, breaker=False)
    assert not result.summary.success
    assert result.summary.error is not None
    assert result.summary.error["type"] == "invalid_request_error"
    assert "prompt is too long" in result.summary.error["message"]
    # past the threshold every turn called the summarizer again, more often than a breaker
    # allows, until the history outgrew the window
    kinds = [r.kind for r in result.records]
    first = kinds.index("summary")
    assert kinds[first - 1:] == ["agent", "summary"] * result.summary.summary_calls + ["agent"]
    assert result.summary.summary_calls > 3
