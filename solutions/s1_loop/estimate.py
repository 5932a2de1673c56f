"""Exercise 1.2 — the naive token estimate: four characters per token (guide §9.5).

It is what an agent can compute locally, before sending. It is close enough on English prose
and far off on Chinese text and source code: stage 1's metrics make the gap visible.
"""

from __future__ import annotations

import json
import math
from typing import Any


def _text_of(block: dict[str, Any] | str) -> str:
    if isinstance(block, str):
        return block
    kind = block.get("type")
    if kind == "text":
        return block["text"]
    if kind == "thinking":
        return block.get("thinking", "")
    if kind == "tool_use":
        return block["name"] + json.dumps(block.get("input", {}), ensure_ascii=False)
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, list):
            return "".join(_text_of(b) for b in content if b.get("type") == "text")
        return str(content)
    return ""  # images and other blocks: the naive estimator ignores them


def estimate_tokens(messages: list[dict[str, Any]], system: list[dict[str, Any]] | None = None,
                    tools: list[dict[str, Any]] | None = None) -> int:
    """Estimated input tokens of a request: total characters of its text divided by four,
    rounded up (9 characters are 3 tokens).

    Count the text of every message block (text, thinking, tool_use name and input as JSON,
    tool_result content), of the system blocks, and of the tool definitions as JSON.
    """
    ### BEGIN SOLUTION 1.2
    chars = 0
    for message in messages:
        content = message["content"]
        blocks = [content] if isinstance(content, str) else content
        chars += sum(len(_text_of(b)) for b in blocks)
    chars += sum(len(b.get("text", "")) for b in system or [])
    chars += sum(len(json.dumps(t, ensure_ascii=False)) for t in tools or [])
    return math.ceil(chars / 4)
    ### END SOLUTION
