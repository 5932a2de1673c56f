"""Anthropic messages to LangChain messages and back, without losing a block (guide §9.2).

A LangChain trimmer or summarizer works on ``HumanMessage`` / ``AIMessage`` / ``ToolMessage``;
the bench speaks the Messages API. ``to_langchain`` turns each API message into LangChain
messages — a user message's ``tool_result`` blocks become one ``ToolMessage`` each, its other
blocks one ``HumanMessage`` — and gives every one an id naming the original blocks.
``to_anthropic`` rebuilds the API history from what the library kept: a message it kept comes
back as the very blocks it came from (so nothing is re-encoded), one it wrote (a summary) is
converted, and neighbours of the same role are joined into one message, as the API would.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

Messages = list[dict[str, Any]]
PREFIX = "ctxlab"


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _id(index: int, blocks: list[int]) -> str:
    return f"{PREFIX}:{index}:{','.join(map(str, blocks))}"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", b)) if isinstance(b, dict) else str(b) for b in content)


def to_langchain(messages: Messages) -> list[BaseMessage]:
    """LangChain messages for ``messages``, each with an id that names its source blocks."""
    out: list[BaseMessage] = []
    for i, message in enumerate(messages):
        blocks = _blocks(message)
        if message["role"] == "assistant":
            calls = [{"id": b["id"], "name": b["name"], "args": b.get("input") or {}}
                     for b in blocks if b.get("type") == "tool_use"]
            text = [b for b in blocks if b.get("type") != "tool_use"]
            out.append(AIMessage(content=text, tool_calls=calls,
                                 id=_id(i, list(range(len(blocks))))))
            continue
        rest = [j for j, b in enumerate(blocks) if b.get("type") != "tool_result"]
        for j, block in enumerate(blocks):
            if block.get("type") == "tool_result":
                content = block.get("content", "")
                out.append(ToolMessage(content=content if isinstance(content, str) else
                                       json.loads(json.dumps(content)),
                                       tool_call_id=block["tool_use_id"], id=_id(i, [j]),
                                       status="error" if block.get("is_error") else "success"))
        if rest:
            out.append(HumanMessage(content=[blocks[j] for j in rest], id=_id(i, rest)))
    return out


def to_anthropic(kept: list[BaseMessage], messages: Messages) -> Messages:
    """The API history for the LangChain messages ``kept`` (of ``messages``)."""
    out: Messages = []
    for message in kept:
        role, blocks = _source(message, messages)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1] = {**out[-1], "content": [*_blocks(out[-1]), *blocks]}
        else:
            out.append({"role": role, "content": blocks})
    return out


def _source(message: BaseMessage, messages: Messages) -> tuple[str, list[dict[str, Any]]]:
    """(role, blocks): the original blocks of a kept message, or a converted new one."""
    prefix, _, rest = str(message.id or "").partition(":")
    if prefix == PREFIX:
        index, _, picks = rest.partition(":")
        original = messages[int(index)]
        blocks = _blocks(original)
        return original["role"], [blocks[int(j)] for j in picks.split(",") if j]
    role = "assistant" if isinstance(message, AIMessage) else "user"
    text = _text(message.content)
    return role, [{"type": "text", "text": text}] if text.strip() else []
