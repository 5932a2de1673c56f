"""A calibrated token estimate (guide §9.5): character classes weighted by fitted costs.

chars/4 assumes every character costs the same. It does not: a CJK character is about one
token, an English word well under one, punctuation in code about one each. Fitting one weight
per character class against the API's own counts (``count_tokens`` is free) brings the
estimate within a few percent on English, Chinese and code alike. ``calibrate`` refits the
weights from (text, tokens) samples; ``WEIGHTS`` were fitted that way on the fixtures.
Images cost width × height / 750 (API docs), and a request with tools pays the tool-use
system prompt (API notes §3.6).

The estimate runs before every request over the whole history, so it is incremental: each
distinct text is scanned once, each message's sum is kept while that message is unchanged, and
plain ASCII text is counted with byte translations instead of regular expressions.
``estimate_tokens`` still visits every message; the bench's wrapper keeps the running sum
(``message_tokens``, ``request_tokens``; see ``ctxlab.incremental``), so a turn pays for its new
blocks, not for the length of the session.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ctxlab.sim.render import image_tokens
from ctxlab.tokens import block_text

CLASSES = (
    ("cjk", re.compile(r"[\u3000-\u9fff\uff00-\uffef]")),
    ("words", re.compile(r"[A-Za-z]+")),
    ("digits", re.compile(r"\d")),
    ("spaces", re.compile(r"\s")),
)
WEIGHTS = {"cjk": 0.995, "words": 0.395, "digits": 0.732, "other": 1.044, "spaces": 0.237}
FRAMING = 3  # per message
TOOL_PROMPT = 497  # a typical tool-use system prompt (the largest of the documented ones)


def features(text: str) -> dict[str, float]:
    """Counts per class; ``words`` counts words, the others characters."""
    if text.isascii():
        return _ascii_features(text)
    found = {name: pattern.findall(text) for name, pattern in CLASSES}
    letters = sum(len(w) for w in found["words"])
    counted = len(found["cjk"]) + letters + len(found["digits"]) + len(found["spaces"])
    return {"cjk": len(found["cjk"]), "words": len(found["words"]),
            "digits": len(found["digits"]), "spaces": len(found["spaces"]),
            "other": len(text) - counted}


_ASCII = "".join(map(chr, range(128)))
_ASCII_CLASS = {name: "".join(pattern.findall(_ASCII)).encode() for name, pattern in CLASSES}
_LETTER_MARKS = bytes(b"a"[0] if i in _ASCII_CLASS["words"] else b" "[0] for i in range(256))


def _ascii_features(text: str) -> dict[str, float]:
    """``features`` of ASCII text: the same counts, from a few C-speed passes over bytes.

    The byte sets are taken from the class patterns themselves, so both paths agree.
    """
    raw = text.encode("ascii")

    def count(name: str) -> int:
        return len(raw) - len(raw.translate(None, _ASCII_CLASS[name]))

    letters, digits, spaces = count("words"), count("digits"), count("spaces")
    marks = raw.translate(_LETTER_MARKS)  # every letter becomes "a", anything else " "
    words = marks.count(b" a") + marks.startswith(b"a")
    return {"cjk": 0, "words": words, "digits": digits, "spaces": spaces,
            "other": len(raw) - letters - digits - spaces}


def estimate_text(text: str, weights: dict[str, float] = WEIGHTS) -> float:
    return sum(weights[k] * v for k, v in features(text).items())


def calibrate(samples: list[tuple[str, int]]) -> dict[str, float]:
    """Least-squares weights from (text, reported tokens) samples."""
    names = list(WEIGHTS)
    rows = [[features(text)[n] for n in names] for text, _ in samples]
    size = len(names)
    normal = [[sum(r[i] * r[j] for r in rows) for j in range(size)]
              + [sum(r[i] * t for r, (_, t) in zip(rows, samples, strict=True))]
              for i in range(size)]
    for i in range(size):  # Gauss-Jordan elimination with partial pivoting
        pivot = max(range(i, size), key=lambda r: abs(normal[r][i]))
        normal[i], normal[pivot] = normal[pivot], normal[i]
        for r in range(size):
            if r != i and normal[i][i]:
                factor = normal[r][i] / normal[i][i]
                normal[r] = [a - factor * b for a, b in zip(normal[r], normal[i], strict=True)]
    return {n: normal[i][size] / normal[i][i] if normal[i][i] else 0.0
            for i, n in enumerate(names)}


@lru_cache(maxsize=65_536)
def _text_cost(text: str) -> float:
    """``estimate_text`` with the fitted weights, cached per distinct text."""
    return estimate_text(text)


class _Memo:
    """One value per list of blocks, kept while that list is unchanged.

    Found by the list's identity and confirmed against a copy of what it held: a list changed
    in place (or a new list at a recycled address) is computed afresh, and confirming an
    unchanged one is a single C-level comparison that stops at shared strings.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.entries: dict[int, tuple[list[Any], float]] = {}

    def get(self, blocks: list[Any], compute: Callable[[list[Any]], float]) -> float:
        entry = self.entries.get(id(blocks))
        if entry is not None and entry[0] == blocks:
            return entry[1]
        value = compute(blocks)
        if len(self.entries) >= self.limit:
            self.entries.clear()
        self.entries[id(blocks)] = (copy.deepcopy(blocks), value)
        return value


_MESSAGES = _Memo(limit=32_768)
_TOOLS = _Memo(limit=64)


def _block(block: dict[str, Any] | str) -> float:
    if isinstance(block, str):
        return _text_cost(block)
    kind = block.get("type")
    if kind == "image":
        return image_tokens(block.get("source", {}))
    cost = _text_cost(block_text(block))
    content = block.get("content")
    if kind == "tool_result" and isinstance(content, list):
        cost += sum(image_tokens(b["source"]) for b in content
                    if isinstance(b, dict) and b.get("type") == "image")
    return cost


def _message(blocks: list[Any]) -> float:
    return FRAMING + sum(_block(b) for b in blocks)


def _tools(tools: list[dict[str, Any]]) -> float:
    stripped = [{k: v for k, v in t.items() if k != "cache_control"} for t in tools]
    return sum(_text_cost(json.dumps(t, sort_keys=True, ensure_ascii=False)) for t in stripped)


def message_tokens(message: dict[str, Any]) -> float:
    """One message's share of the estimate: its blocks plus the framing."""
    content = message["content"]
    return (FRAMING + _text_cost(content) if isinstance(content, str)
            else _MESSAGES.get(content, _message))


def message_share(message: dict[str, Any]) -> float:
    """``message_tokens`` worked out afresh, for a caller that keeps each message's share
    itself (the bench's running sum): remembering it would only cost a copy of the message."""
    content = message["content"]
    return FRAMING + _text_cost(content) if isinstance(content, str) else _message(content)


def request_tokens(messages_total: float, system: list[dict[str, Any]] | None = None,
                   tools: list[dict[str, Any]] | None = None) -> int:
    """The whole request's estimate, from the running sum of its messages' shares."""
    total = messages_total + sum(_text_cost(b.get("text", "")) for b in system or [])
    total += _TOOLS.get(tools, _tools) if tools else 0
    return round(total + (TOOL_PROMPT if tools else 0))


def estimate_tokens(messages: list[dict[str, Any]], system: list[dict[str, Any]] | None = None,
                    tools: list[dict[str, Any]] | None = None) -> int:
    """Calibrated estimate of a request's input tokens (incremental, see the module docs)."""
    total = 0.0
    for message in messages:
        total += message_tokens(message)
    return request_tokens(total, system, tools)
