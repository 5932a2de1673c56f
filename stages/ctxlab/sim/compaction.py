"""Server-side compaction, ``compact_20260112`` (R32–R36, API notes §6).

Two halves: on every request, everything before the last non-null ``compaction`` block is
dropped before counting and caching (R35); and when the prompt reaches the trigger, the model
writes a summary that becomes a new ``compaction`` block at the start of the reply (R33).
"""

from __future__ import annotations

from typing import Any

from . import wording
from .editing import COMPACT, edits
from .errors import invalid
from .schema import Request

DEFAULT_TRIGGER = 150_000
MINIMUM_TRIGGER = 50_000


def settings(req: Request) -> dict[str, Any] | None:
    """The validated compaction edit, or None when the request does not ask for compaction."""
    for i, edit in enumerate(edits(req)):
        if edit["type"] != COMPACT:
            continue
        if not req.spec.supports_compaction:
            raise invalid(wording.COMPACT_UNSUPPORTED.format(i=i, model=req.model))
        trigger = edit.get("trigger") or {"type": "input_tokens", "value": DEFAULT_TRIGGER}
        if trigger.get("type", "input_tokens") != "input_tokens":
            raise invalid(wording.UNKNOWN_TAG.format(
                path=f"context_management.edits.{i}.trigger", tag=trigger.get("type"),
                expected="'input_tokens'"))
        value = trigger.get("value", DEFAULT_TRIGGER)
        if not isinstance(value, int) or value < MINIMUM_TRIGGER:  # R32
            raise invalid(wording.COMPACT_TRIGGER_LOW.format(i=i))
        return {"trigger": value, "pause": bool(edit.get("pause_after_compaction", False)),
                "instructions": edit.get("instructions")}
    return None


def drop_before_last(req: Request) -> None:
    """R35: continue from the last compaction block; null-content blocks are no-ops."""
    for i in range(len(req.messages) - 1, -1, -1):
        content = req.messages[i]["content"]
        for j in range(len(content) - 1, -1, -1):
            block = content[j]
            if block.get("type") == "compaction" and block.get("content") is not None:
                req.messages[i]["content"] = content[j:]
                req.origin[i] = req.origin[i][j:]
                del req.messages[:i]
                del req.origin[:i]
                return


def compacted(req: Request, summary: str) -> dict[str, Any]:
    """Replace the history with one message holding the new compaction block; returns it."""
    block = {"type": "compaction", "content": summary}
    req.messages[:] = [{"role": "user", "content": [block]}]
    req.origin[:] = [[(0, 0)]]
    return block
