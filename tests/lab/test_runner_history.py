"""The runner's history does not depend on how a stage-1 loop treats the list it was given:
after an API error, ``RunResult.messages`` is the request that failed (issue: a loop that
copies its list kept 1 message instead of the whole history, and notebook 01 broke)."""

from __future__ import annotations

from typing import Any

import pytest

from ctxlab import runner

REFERENCE = runner.load_stage(1).run_loop


def copying_loop(session: Any, messages: list[dict[str, Any]], *args: Any,
                 **kwargs: Any) -> list[dict[str, Any]]:
    """A correct loop that never changes the caller's list."""
    return REFERENCE(session, list(messages), *args, **kwargs)


@pytest.mark.parametrize("loop", [REFERENCE, copying_loop], ids=["in-place", "copying"])
def test_after_an_api_error_the_history_is_the_failed_request(
        loop: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner.load_stage(1), "run_loop", loop)
    result = runner.run(1, "long-task", model="claude-haiku-4-5")
    assert result.summary.error is not None
    assert result.records[-1].error is not None
    assert len(result.messages) == result.records[-1].messages > 20  # a long history
    assert result.messages[0]["role"] == "user" and result.messages[-1]["role"] == "user"
