"""Turning a responder's Reply into the response content: ids, signatures, output limits.

Tool-use ids and message ids are derived from the request digest, so the same request always
gets the same answer. Output stops at ``max_tokens`` (``stop_reason: max_tokens``) or, on 4.5+
models, where it would cross the context window (``model_context_window_exceeded``, R13).
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..tokens import count_block, encoding
from . import thinking
from .responder import Reply


def _id(prefix: str, digest: str, salt: str) -> str:
    return prefix + hashlib.sha256(f"{digest}:{salt}".encode()).hexdigest()[:24]


def message_id(digest: str) -> str:
    return _id("msg_sim", digest, "message")


def finish(reply: Reply, digest: str, msg_id: str) -> list[dict[str, Any]]:
    """Fill tool_use ids and thinking signatures."""
    blocks = [dict(b) for b in reply.content]
    thoughts = [b for b in blocks if b.get("type") == "thinking"]
    for k, block in enumerate(thoughts):
        block["signature"] = thinking.sign(block, message_id=msg_id, index=k, count=len(thoughts))
    for k, block in enumerate(blocks):
        if block.get("type") == "tool_use" and not block.get("id"):
            block["id"] = _id("toolu_", digest, str(k))
    return blocks


def stop_at(reply: Reply, sequences: list[str]) -> tuple[Reply, str | None]:
    """``reply`` cut where its text first shows one of ``sequences`` (the sequence itself and
    every later block left out); also returns the sequence that matched, if any."""
    if not sequences:
        return reply, None
    for k, block in enumerate(reply.content):
        if block.get("type") != "text":
            continue
        hits = [(block["text"].find(s), s) for s in sequences if s in block["text"]]
        if not hits:
            continue
        at, sequence = min(hits)
        head = block["text"][:at]
        kept = reply.content[:k] + ([dict(block, text=head)] if head else [])
        return Reply(kept, "stop_sequence"), sequence
    return reply, None


def _cut_text(text: str, budget: int) -> str:
    tokens = encoding().encode(text, disallowed_special=())
    return encoding().decode(tokens[:budget])


def limit(blocks: list[dict[str, Any]], budget: int) -> tuple[list[dict[str, Any]], int, bool]:
    """Keep output within ``budget`` tokens; returns (blocks, output_tokens, truncated)."""
    kept: list[dict[str, Any]] = []
    used = 0
    for block in blocks:
        cost = count_block(block)
        if used + cost <= budget:
            kept.append(block)
            used += cost
            continue
        room = budget - used
        if block.get("type") == "text" and room > 0:
            kept.append(dict(block, text=_cut_text(block["text"], room)))
            used += count_block(kept[-1])
        return kept, used, True
    return kept, used, False


def stop_reason(reply: Reply, blocks: list[dict[str, Any]]) -> str:
    if reply.stop_reason:
        return reply.stop_reason
    return "tool_use" if any(b.get("type") == "tool_use" for b in blocks) else "end_turn"
