"""The simplest prompt-cache breakpoint: one, on the newest message (guide §6.4, API docs).

Stage 4 marks the last block of the history it hands over with ``cache_control``, so each
request reads back what the previous one wrote and writes only what is new. That is what makes
its weakness visible: a summary replaces the history from the first message on, so the request
after it matches no cached prefix, reads nothing and writes everything again (§6.5). Stage 5
keeps a prefix that survives (cache zones, exercise 5.4); this is only the moving breakpoint.
"""

from __future__ import annotations

from typing import Any

Messages = list[dict[str, Any]]
BREAKPOINT = {"type": "ephemeral"}  # 5 minutes


def _unmarked(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in b.items() if k != "cache_control"} for b in blocks]


def mark_newest_message(messages: Messages) -> Messages:
    """A copy of ``messages`` whose only breakpoint is on the newest cacheable block of the
    last message (thinking blocks and empty texts cannot carry one)."""
    out = [m if isinstance(m["content"], str) or not any("cache_control" in b for b in m["content"])
           else dict(m, content=_unmarked(m["content"])) for m in messages]
    if not out:
        return out
    last = out[-1]["content"]
    blocks = _unmarked([{"type": "text", "text": last}] if isinstance(last, str) else last)
    for block in reversed(blocks):
        if block.get("type") not in ("thinking", "redacted_thinking") and not (
                block.get("type") == "text" and not block.get("text")):
            block["cache_control"] = dict(BREAKPOINT)
            break
    out[-1] = dict(out[-1], content=blocks)
    return out
