"""The rendered prompt: one position per tool, system block and message block (API notes §1.3–1.4).

Prompt caching works on this sequence, in the order tools → system → messages. Each position
has a token count (reference tokenizer, see ``ctxlab.tokens``) and a chained prefix hash, so
two requests share a cache entry exactly when everything up to that position is identical.
Flags that the API renders into the prompt (R16: tool_choice, thinking, effort, images; speed
and citations before system) are mixed into the chain where they are rendered, which gives the
invalidation tiers of R23 without a special case; a flag set to its default equals omitting it.

Counts and block digests are cached per block content (issues 9, 49; ``content``): a request
that extends the previous one serialises, tokenizes and hashes only its new blocks; the chain
itself is one short hash per position.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from ..tokens import count_block, count_text
from . import content, images
from .schema import Request

MESSAGE_FRAMING = 3  # tokens for the role marker of each message (our convention)
IMAGE_FALLBACK_TOKENS = 1_600  # when an image's size cannot be read (about a 1092x1092 image)
DEFAULT_EFFORT = "high"  # "effort: high produces exactly the same behavior as omitting it" (DOC)


class Position(NamedTuple):
    """One block of the rendered prompt (a named tuple: a long request makes thousands)."""

    path: str
    tokens: int
    cumulative: int
    key: str  # prefix hash up to and including this block
    cacheable: bool
    cache_control: dict[str, Any] | None
    zone: str  # "tools" | "system" | "messages"


@dataclass(frozen=True)
class Rendered:
    """The rendered prompt of one request."""

    positions: tuple[Position, ...]
    total: int

    def breakpoints(self) -> list[int]:
        return [k for k, p in enumerate(self.positions) if p.cache_control is not None]


def _canonical(block: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in block.items() if k != "cache_control"},
                      sort_keys=True, ensure_ascii=False)


@lru_cache(maxsize=100_000)
def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def _chain(prev: bytes, piece: str) -> bytes:
    return _link(prev, _digest(piece))


def _link(prev: bytes, digest: bytes) -> bytes:
    return hashlib.sha256(prev + digest).digest()


def _message_block(role: str, block: dict[str, Any]) -> tuple[int, bytes]:
    """(tokens, digest of role + canonical JSON) of one message block, cached per content.

    Every request arrives as fresh JSON, so the cache is keyed by content (``content.key``):
    building the key costs far less than serialising the block, tokenizing its text and
    hashing the JSON again, so a new request pays the full price only for its new blocks. A
    block that is not plain JSON has no key and is computed each time.
    """
    found = content.block_key(block)
    if found is None:
        return _block_render(role, block)
    return _keyed_block(role, found)


@lru_cache(maxsize=65_536)
def _keyed_block(role: str, found: Hashable) -> tuple[int, bytes]:
    return _block_render(role, content.value(found))


def _block_render(role: str, block: dict[str, Any]) -> tuple[int, bytes]:
    return block_tokens(block), _digest(role + _canonical(block))


def image_tokens(source: dict[str, Any]) -> int:
    """Image cost: width × height / 750 (API docs' rule), after the long-edge limit of 1568."""
    size = images.decoded_size(source)
    if size is None:
        return IMAGE_FALLBACK_TOKENS
    width, height = size
    scale = min(1.0, 1568 / max(width, height, 1))
    return max(1, round(width * scale * height * scale / 750))


def block_tokens(block: dict[str, Any]) -> int:
    """Tokens of one message block: its text, or the image rule for images."""
    if block.get("type") == "image":
        return image_tokens(block.get("source", {}))
    if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
        images = sum(image_tokens(b.get("source", {})) for b in block["content"]
                     if b.get("type") == "image")
        return count_block(block) + images
    return count_block(block)


def _cacheable(block: dict[str, Any]) -> bool:
    kind = block.get("type")
    if kind in ("thinking", "redacted_thinking"):
        return False
    return not (kind == "text" and not block.get("text"))


def _prior_turn_boundary(messages: list[dict[str, Any]]) -> int:
    """Index of the last user message that starts a new turn (has non-tool_result content)."""
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if message["role"] == "user" and any(b.get("type") != "tool_result"
                                             for b in message["content"]):
            return i
    return 0


def _blocks(req: Request) -> list[dict[str, Any]]:
    """Every message block, including those nested in tool_result content."""
    found = []
    for message in req.messages:
        for block in message["content"]:
            found.append(block)
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                found.extend(block["content"])
    return found


def _system_flags(req: Request, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """R16: flags rendered before ``system``; a parameter set to its default is omitted."""
    speed = req.body.get("speed")
    citations = any(isinstance(b.get("citations"), dict) and b["citations"].get("enabled")
                    for b in blocks if b.get("type") == "document")
    return {"speed": None if speed == "standard" else speed, "citations": citations}


def _message_flags(req: Request, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """R16: flags rendered just before ``messages`` (tool_choice, thinking, effort, images)."""
    choice = {k: v for k, v in req.tool_choice.items()
              if not (k == "disable_parallel_tool_use" and v is False)}
    thinking = None if (req.thinking or {}).get("type") == "disabled" else req.thinking
    effort = (req.body.get("output_config") or {}).get("effort")
    return {"tool_choice": choice, "thinking": thinking,
            "effort": None if effort == DEFAULT_EFFORT else effort,
            "images": any(b.get("type") == "image" for b in blocks)}


def tool_overhead(req: Request) -> int:
    """Tokens of the tool-use system prompt (API notes §3.6)."""
    if not req.tools:
        return 0
    forced = req.tool_choice.get("type") in ("any", "tool")
    return req.spec.tool_overhead[1 if forced else 0]


def render(req: Request, *, chained: bool = True) -> Rendered:
    """Render ``req`` into positions with token counts and chained prefix hashes; a request
    that is only counted (``chained=False``: nothing is read from or written to the cache)
    gets the same positions with empty keys."""
    positions: list[Position] = []
    chain = _digest(req.spec.id)
    total = 0

    def add(path: str, tokens: int, digest: bytes, block: dict[str, Any], zone: str,
            cacheable: bool) -> None:
        nonlocal chain, total
        if chained:
            chain = _link(chain, digest)
        total += tokens
        positions.append(Position(path, tokens, total, chain.hex() if chained else "",
                                  cacheable, block.get("cache_control"), zone))

    overhead = tool_overhead(req)
    for k, tool in enumerate(req.tools):
        piece = _canonical(tool)
        add(f"tools.{k}", count_text(piece) + (overhead if k == 0 else 0), _digest(piece),
            tool, "tools", True)
    blocks = _blocks(req)
    chain = _chain(chain, json.dumps(_system_flags(req, blocks), sort_keys=True))
    for k, block in enumerate(req.system):
        add(f"system.{k}", count_text(block.get("text", "")), _digest(_canonical(block)),
            block, "system", _cacheable(block))
    chain = _chain(chain, json.dumps(_message_flags(req, blocks), sort_keys=True))
    boundary = _prior_turn_boundary(req.messages)
    for i, message in enumerate(req.messages):
        for j, block in enumerate(message["content"]):
            prior_thinking = (i < boundary and block.get("type") in ("thinking",
                                                                     "redacted_thinking"))
            tokens, digest = _message_block(message["role"], block)
            if prior_thinking:
                tokens = 0
            if j == 0:
                tokens += MESSAGE_FRAMING
            add(req.path(i, j), tokens, digest, block, "messages", _cacheable(block))
    return Rendered(tuple(positions), total)
