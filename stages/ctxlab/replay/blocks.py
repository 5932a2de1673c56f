"""Content blocks as the Messages API takes them (real-transcripts §5 step 5, API notes §3).

A session log stores blocks with extra, non-API fields (``caller`` on tool_use blocks) and, in
user lines, plain strings. Each block is reduced to the fields the API accepts; a block the API
would reject — an empty text, a thinking block without its signature, a type this replay does
not know — is dropped, and the caller counts it. Images and thinking blocks are kept as they
are: a replay must see what the model saw (§9.1 images, R14 thinking). An image the API would
refuse (base64 damaged by a redaction, say) becomes a text placeholder that says so
(``IMAGE_PLACEHOLDER``): every request of the replay must stay one the API accepts.
"""

from __future__ import annotations

from typing import Any

from ctxlab.sim.images import payload_problem

Block = dict[str, Any]
IMAGE_PLACEHOLDER = "[replay] an image the API would refuse"

API_FIELDS: dict[str, tuple[str, ...]] = {
    "text": ("text",),
    "image": ("source",),
    "document": ("source", "title", "context"),
    "thinking": ("thinking", "signature"),
    "redacted_thinking": ("data",),
    "tool_use": ("id", "name", "input"),
    "tool_result": ("tool_use_id", "content", "is_error"),
}
RESULT_CONTENT = ("text", "image", "document")


def as_blocks(content: Any) -> list[Any]:
    """A message's content as a list: a string becomes one text block."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content) if isinstance(content, list) else []


def _usable(block: Block) -> bool:
    kind = block["type"]
    if kind == "text":
        return isinstance(block.get("text"), str) and bool(block["text"].strip())
    if kind == "thinking":
        return isinstance(block.get("thinking"), str) and isinstance(block.get("signature"), str)
    if kind == "tool_use":
        return isinstance(block.get("id"), str) and isinstance(block.get("input"), dict)
    if kind == "tool_result":
        return isinstance(block.get("tool_use_id"), str)
    return True


def clean(block: Any) -> Block | None:
    """``block`` with only its API fields, or None when the API would not accept it."""
    if not isinstance(block, dict) or block.get("type") not in API_FIELDS:
        return None
    kept = {"type": block["type"]}
    kept.update({k: block[k] for k in API_FIELDS[block["type"]] if block.get(k) is not None})
    if not _usable(kept):
        return None
    if kept["type"] == "image" and isinstance(kept.get("source"), dict):
        problem = payload_problem(kept["source"])
        if problem is not None:
            return {"type": "text", "text": f"{IMAGE_PLACEHOLDER} ({problem}: the log's copy "
                                            "was altered, e.g. redacted)"}
    if kept["type"] == "tool_result" and isinstance(kept.get("content"), list):
        inner = [clean(b) for b in kept["content"]]
        kept["content"] = [b for b in inner if b is not None and b["type"] in RESULT_CONTENT]
    return kept


def synthetic_result(tool_use_id: str) -> Block:
    """The error result given to a call the log never answered (§9.2: every call is paired)."""
    return {"type": "tool_result", "tool_use_id": tool_use_id, "is_error": True,
            "content": "[replay] the session log has no result for this tool call"}
