"""Helpers of the simulator conformance suite (tests/lab/test_sim_*.py).

Generated text, request calls that work for both the GA and the beta endpoint, the usage
invariant every response must satisfy (R19, R37), and a context manager that checks an API
error's class, status, type and exact message.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anthropic
import pytest

from ctxlab.sim import Reply

# Common English words that are one cl100k token each, with or without a leading space, so
# ``text(n)`` is exactly ``n`` tokens.
WORDS = (
    "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with", "be", "by",
    "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an",
    "they", "you", "were", "her", "she", "there", "one", "all", "we", "their", "can", "has",
    "more", "will", "if", "would", "been", "when", "so", "no", "who", "its", "into", "time",
    "two", "may", "only", "new", "some", "could", "these", "other", "than", "then", "now",
    "first", "any", "like", "over", "such", "our", "man", "me", "even", "most", "made",
    "after", "also", "did", "many", "before", "must", "through", "back", "years", "where",
    "much", "your", "way", "well", "down", "should", "because", "each", "just", "those",
    "people", "how", "too", "little", "state", "good", "very", "make", "world", "still", "own",
    "see", "men", "work", "long", "here", "get", "both", "between", "life", "being", "under",
    "never", "day", "same", "another", "know", "while", "last", "might", "us", "great", "old",
    "year", "off", "come", "since", "against", "go", "came", "right", "used", "take", "three",
)

COMPACT_BETA = "compact-2026-01-12"
EDITING_BETA = "context-management-2025-06-27"


def text(n_tokens: int, seed: object = 0) -> str:
    """Generated prose of exactly ``n_tokens`` tokens; a different seed gives different text."""
    rng = random.Random(f"ctxlab-{seed}")
    return " ".join(rng.choice(WORDS) for _ in range(n_tokens))


def user(*blocks: str | dict[str, Any]) -> dict[str, Any]:
    """A user message from strings (text blocks) and ready-made blocks."""
    return {"role": "user", "content": [_block(b) for b in blocks]}


def assistant(*blocks: str | dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": [_block(b) for b in blocks]}


def _block(block: str | dict[str, Any]) -> dict[str, Any]:
    return {"type": "text", "text": block} if isinstance(block, str) else block


def cached(block: str | dict[str, Any], ttl: str | None = None) -> dict[str, Any]:
    """``block`` with a ``cache_control`` breakpoint (default TTL when ``ttl`` is None)."""
    control: dict[str, Any] = {"type": "ephemeral"}
    if ttl is not None:
        control["ttl"] = ttl
    return {**_block(block), "cache_control": control}


def tool_use(tool_id: str, name: str = "read_file", **inputs: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": inputs}


def tool_result(tool_id: str, content: Any = "ok") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content}


def tool(name: str, description: str = "A tool.") -> dict[str, Any]:
    return {"name": name, "description": description,
            "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}


def dump(content: list[Any]) -> list[dict[str, Any]]:
    """Response content blocks as request params (what an agent appends to its history)."""
    return [block.model_dump(exclude_none=True) for block in content]


def create(client: anthropic.Anthropic, body: dict[str, Any]) -> Any:
    """``messages.create``, or ``beta.messages.create`` when ``body`` has ``betas``."""
    body = dict(body)
    betas = body.pop("betas", None)
    if betas is not None:
        return client.beta.messages.create(betas=betas, **body)
    return client.messages.create(**body)


def count(client: anthropic.Anthropic, body: dict[str, Any]) -> int:
    """``count_tokens`` on the same body (R37): everything but ``max_tokens`` and ``stream``."""
    return count_response(client, body).input_tokens


def count_response(client: anthropic.Anthropic, body: dict[str, Any]) -> Any:
    body = {k: v for k, v in body.items() if k not in ("max_tokens", "stream")}
    betas = body.pop("betas", None)
    if betas is not None:
        return client.beta.messages.count_tokens(betas=betas, **body)
    return client.messages.count_tokens(**body)


def assert_usage_ok(client: anthropic.Anthropic, body: dict[str, Any], message: Any) -> int:
    """The usage invariants of R19/R33/R37 on one response; returns the total input.

    ``cache_read + cache_creation + input_tokens`` equals ``count_tokens`` of the same body,
    ``cache_creation`` equals its 5m + 1h parts, and under the compaction beta the top-level
    input/output equal the ``message`` iteration. When this response compacted, the total is
    that of the compacted prompt (the new compaction block in place of the history); when it
    paused after compacting (R34) no message was sampled and every top-level count is 0.
    """
    usage = message.usage
    parts = usage.cache_creation
    read, creation, uncached = (usage.cache_read_input_tokens, usage.cache_creation_input_tokens,
                                usage.input_tokens)
    assert creation == parts.ephemeral_5m_input_tokens + parts.ephemeral_1h_input_tokens
    assert min(read, creation, uncached, usage.output_tokens, parts.ephemeral_5m_input_tokens,
               parts.ephemeral_1h_input_tokens) >= 0
    iterations = list(getattr(usage, "iterations", None) or [])
    kinds = [it.type for it in iterations]
    if COMPACT_BETA in body.get("betas", ()):
        assert kinds and kinds[-1] in ("message", "compaction")  # R33: always present
    if "message" in kinds:
        last = iterations[kinds.index("message")]
        assert (last.input_tokens, last.output_tokens) == (uncached, usage.output_tokens)
    if "compaction" in kinds:
        block = message.content[0]
        assert block.type == "compaction"
        if "message" not in kinds:  # R34: paused, nothing sampled
            assert (read, creation, uncached, usage.output_tokens) == (0, 0, 0, 0)
            return 0
        compacted = {"role": "user", "content": [{"type": "compaction", "content": block.content}]}
        body = {**body, "messages": [compacted]}
    total = count(client, body)
    assert read + creation + uncached == total, (read, creation, uncached, total)
    return total


@contextmanager
def api_error(kind: type[anthropic.APIStatusError], status: int, message: str, *,
              error_type: str = "invalid_request_error") -> Iterator[Any]:
    """Expect ``kind`` with this status, ``error.type`` and exact ``error.message``."""
    with pytest.raises(kind) as info:
        yield info
    error = info.value
    assert error.status_code == status
    assert error.body["type"] == "error"
    assert error.body["error"]["type"] == error_type
    assert error.body["error"]["message"] == message
    assert error.body["request_id"] == error.request_id  # R§8: header and body agree


class ToolLoop:
    """A responder that calls the first offered tool ``steps`` times, then answers.

    With thinking enabled every turn starts with a thinking block (the simulator signs it), so
    a loop driven through the client exercises R14 on every request.
    """

    def __init__(self, steps: int = 3) -> None:
        self.steps = steps
        self.views: list[Any] = []

    def respond(self, view: Any) -> Reply:
        self.views.append(view)
        done = sum(1 for m in view.messages for b in m["content"] if b.get("type") == "tool_result")
        content: list[dict[str, Any]] = []
        if view.thinking_enabled:
            content.append({"type": "thinking", "thinking": text(150, f"thought-{done}")})
        if done < self.steps and view.tools_allowed:
            content.append({"type": "tool_use", "name": view.tools[0]["name"],
                            "input": {"path": f"src/file_{done}.py"}})
        else:
            content.append({"type": "text", "text": "All done."})
        return Reply(content)

    def summarize(self, view: Any, instructions: str | None) -> str:
        return "Summary: " + text(40, len(view.messages))


def run_loop(client: anthropic.Anthropic, request: dict[str, Any],
             result_tokens: int = 300) -> dict[str, Any]:
    """Drive the tool loop to its end; returns the last request (the whole tool history)."""
    while True:
        message = create(client, request)
        assert_usage_ok(client, request, message)
        history = [*request["messages"], {"role": "assistant", "content": dump(message.content)}]
        uses = [b for b in message.content if b.type == "tool_use"]
        if not uses:
            return request
        results = [tool_result(u.id, text(result_tokens, u.id)) for u in uses]
        request = {**request, "messages": [*history, {"role": "user", "content": results}]}


def sse_events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    """(event name, data) of each SSE frame; every frame must have both lines."""
    frames = []
    for chunk in raw.decode().split("\n\n"):
        if not chunk.strip():
            continue
        lines = dict(line.split(": ", 1) for line in chunk.split("\n"))
        frames.append((lines["event"], json.loads(lines["data"])))
    return frames
