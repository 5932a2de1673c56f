"""Exercise 1.1 — the agent loop (guide §14 stage 1 steps 1–3)."""

from __future__ import annotations

import pytest
from s1_loop import run_loop

from ctxlab import scenarios
from ctxlab.brain import Brain
from ctxlab.runner import run
from ctxlab.session import Session
from ctxlab.sim import Simulator, make_client
from ctxlab.tools import ToolBox, definitions

pytestmark = pytest.mark.exercise("1.1")


def _session(plan: scenarios.Scenario, root, calls: list) -> Session:
    sim = Simulator(responder=Brain(plan))
    return Session(make_client(sim), plan.model, [{"type": "text", "text": "Be careful."}],
                   definitions(), root, observer=lambda *args: calls.append(args))


def test_small_task_is_done_for_real() -> None:
    result = run(1, "bugfix-small")
    assert result.summary.success, result.problems
    assert result.summary.error is None


def test_history_alternates_and_every_tool_use_is_answered() -> None:
    result = run(1, "bugfix-small")
    roles = [m["role"] for m in result.messages]
    assert roles == ["user", "assistant"] * (len(roles) // 2)
    for ask, answer in zip(result.messages[1::2], result.messages[2::2], strict=False):
        ids = [b["id"] for b in ask["content"] if b["type"] == "tool_use"]
        results = [b["tool_use_id"] for b in answer["content"] if b["type"] == "tool_result"]
        assert results[: len(ids)] == ids


def test_parallel_calls_come_back_in_one_message() -> None:
    result = run(1, "parallel-burst", model="claude-sonnet-4-6")
    assert result.summary.success, result.problems
    widest = max(sum(b["type"] == "tool_result" for b in m["content"])
                 for m in result.messages if m["role"] == "user")
    assert widest >= 8


def test_follow_up_user_messages_are_delivered() -> None:
    plan = scenarios.load("chat-heavy")
    # Stage 1 has no layer: this is its loop alone, the total bill's keep-everything row
    result = run(None, "chat-heavy", model="claude-sonnet-4-6")
    texts = [b.get("text", "") for m in result.messages if m["role"] == "user"
             for b in m["content"] if b["type"] == "text"]
    for message in plan.messages:
        assert message.text in texts
    assert result.summary.success, result.problems


def test_loop_stops_after_max_turns(tmp_path) -> None:
    plan = scenarios.load("bugfix-small")
    calls: list = []
    with scenarios.open_workspace(plan) as workspace:
        session = _session(plan, workspace.root, calls)
        history = run_loop(session, [scenarios.opening(plan)], ToolBox(workspace), max_turns=2)
    assert len(calls) == 2
    assert history[-1]["role"] == "user"  # stopped, tool results appended, not sent


class Recorder:
    """A context layer that records what the loop hands it: each hook gets the history (or
    the new results) and the session; what it returns is what the loop must go on with."""

    def __init__(self) -> None:
        self.prepared: list[tuple[list, Session]] = []  # (the history it returned, session)
        self.admitted: list[tuple[list, Session]] = []

    def prepare(self, messages: list, session: Session) -> list:
        history = list(messages)  # a new list: the loop must take it as the history
        self.prepared.append((history, session))
        return history

    def admit(self, results: list, session: Session) -> list:
        kept = [dict(r) for r in results]  # new blocks: the loop must append these
        self.admitted.append((kept, session))
        return kept


def test_a_layer_gets_the_session_and_its_result_becomes_the_history() -> None:
    """Stages 2–5 plug in here (``ctxlab.session.ContextLayer``): a loop that calls
    ``layer.prepare(history)`` without the session, or drops what the layer returns, breaks
    every later stage."""
    plan = scenarios.load("bugfix-small")
    calls: list = []
    layer = Recorder()
    with scenarios.open_workspace(plan) as workspace:
        session = _session(plan, workspace.root, calls)
        history = run_loop(session, [scenarios.opening(plan)], ToolBox(workspace), layer=layer)
    assert len(calls) >= 2 and len(layer.prepared) == len(calls)
    assert all(given is session for _, given in layer.prepared + layer.admitted)
    for (prepared, _), (_, sent, _, _) in zip(layer.prepared, calls, strict=True):
        assert sent is prepared  # each request sends the history the layer returned
    assert len(layer.admitted) == len(calls) - 1  # every turn but the last asked for tools
    appended = [m["content"] for m in history if m["role"] == "user"][1:]
    for (kept, _), content in zip(layer.admitted, appended, strict=True):
        assert all(any(block is mine for block in content) for mine in kept)


def test_api_errors_reach_the_caller() -> None:
    result = run(1, "long-task", model="claude-haiku-4-5")
    assert result.summary.error is not None
    assert result.summary.error["message"].startswith("prompt is too long")
