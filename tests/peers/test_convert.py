"""The LangChain conversion loses nothing: kept messages come back as their own blocks."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_core", reason="the peers extra: pip install -e '.[peers]'")

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402

from ctxlab import use  # noqa: E402
from ctxlab.peers.convert import to_anthropic, to_langchain  # noqa: E402
from ctxlab.runner import run  # noqa: E402


def test_a_real_history_round_trips_block_for_block() -> None:
    use("solutions")
    history = run(1, "parallel-burst", max_turns=4).messages
    chain = to_langchain(history)
    assert to_anthropic(chain, history) == history
    kinds = {type(m) for m in chain}
    assert kinds == {HumanMessage, AIMessage, ToolMessage}
    calls = {c["id"] for m in chain if isinstance(m, AIMessage) for c in m.tool_calls}
    assert {m.tool_call_id for m in chain if isinstance(m, ToolMessage)} <= calls


def test_a_written_message_is_converted_and_neighbours_join() -> None:
    history = [{"role": "user", "content": "task"},
               {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
               {"role": "user", "content": "more"}]
    chain = to_langchain(history)
    summary = HumanMessage(content="summary of the start")
    out = to_anthropic([summary, *chain[2:]], history)
    assert out == [{"role": "user", "content": [{"type": "text", "text": "summary of the start"},
                                                {"type": "text", "text": "more"}]}]
