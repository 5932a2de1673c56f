"""Server-sent events for ``stream: true`` (R36, R41, R42; API notes §2.5).

Every frame carries an ``event:`` line equal to ``data.type`` (the SDK drops frames without
one). Order: ``message_start`` (stop_reason null, input-side usage) → ``ping`` → per block
``content_block_start`` / ``*_delta`` / ``content_block_stop`` → ``message_delta`` (stop reason,
stop sequence, cumulative usage: input, cache and output tokens) → ``message_stop``. A
mid-stream failure ends with ``event: error`` and nothing after it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

TEXT_CHUNK = 80  # characters per text delta
# message_delta carries the cumulative usage (the SDK's MessageDeltaUsage fields)
DELTA_USAGE = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
               "output_tokens", "iterations")


def frame(data: dict[str, Any]) -> bytes:
    return f"event: {data['type']}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def _chunks(text: str, size: int = TEXT_CHUNK) -> list[str]:
    return [text[k:k + size] for k in range(0, len(text), size)] or [""]


def _block_events(index: int, block: dict[str, Any]) -> Iterator[dict[str, Any]]:
    kind = block["type"]
    if kind == "text":
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": c} for c in _chunks(block["text"])]
    elif kind == "tool_use":
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        raw = json.dumps(block["input"], ensure_ascii=False)
        deltas = [{"type": "input_json_delta", "partial_json": c} for c in _chunks(raw)]
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [{"type": "thinking_delta", "thinking": c} for c in _chunks(block["thinking"])]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    else:  # compaction: one delta with the whole summary (R36)
        start = {"type": "compaction", "content": None}
        deltas = [{"type": "compaction_delta", "content": block.get("content")}]
    yield {"type": "content_block_start", "index": index, "content_block": start}
    for delta in deltas:
        yield {"type": "content_block_delta", "index": index, "delta": delta}
    yield {"type": "content_block_stop", "index": index}


def events(message: dict[str, Any], *, fail_with: dict[str, Any] | None = None) -> bytes:
    """The whole SSE body for ``message``; ``fail_with`` cuts it after the first block."""
    usage = dict(message["usage"], output_tokens=0)
    start = dict(message, content=[], stop_reason=None, stop_sequence=None, usage=usage)
    start.pop("context_management", None)
    out = [frame({"type": "message_start", "message": start}), frame({"type": "ping"})]
    for index, block in enumerate(message["content"]):
        out.extend(frame(e) for e in _block_events(index, block))
        if fail_with is not None:
            out.append(frame({"type": "error", "error": fail_with}))
            return b"".join(out)
    if fail_with is not None:  # nothing to stream before the failure
        out.append(frame({"type": "error", "error": fail_with}))
        return b"".join(out)
    delta: dict[str, Any] = {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"],
                  "stop_sequence": message.get("stop_sequence")},
        "usage": {k: message["usage"][k] for k in DELTA_USAGE if k in message["usage"]},
    }
    if "context_management" in message:
        delta["context_management"] = message["context_management"]
    out.append(frame(delta))
    out.append(frame({"type": "message_stop"}))
    return b"".join(out)
