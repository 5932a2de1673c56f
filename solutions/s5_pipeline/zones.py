"""Exercise 5.4 — cache zones: a prefix that stays byte-identical (guide §5.2, §6.2–6.4).

The prompt cache matches prefixes exactly, in the order tools → system → messages (API docs).
So: tools sorted by name (a set or dict iteration order must never reach the wire, §6.2); the
system prompt split into a static zone (identity, rules) and a dynamic zone (date, todo) with
the static zone cached. The boundary between them (§5.2's DYNAMIC_BOUNDARY) is the split into
two blocks, the breakpoint closing the first: no marker text goes on the wire, where it would
cost tokens on every request and tell the model nothing. At most 4 breakpoints, exactly one of
them on the messages — on the newest block, moved forward every turn (§6.4). Longer TTLs first:
the API rejects a 1h breakpoint after a 5m one.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

STATIC_TTL = {"type": "ephemeral", "ttl": "1h"}
MOVING = {"type": "ephemeral"}  # 5 minutes


def zoned_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tools sorted by name, the last one carrying a 1h breakpoint (copies)."""
    ### BEGIN SOLUTION 5.4
    ordered = [{k: v for k, v in t.items() if k != "cache_control"}
               for t in sorted(tools, key=lambda t: t["name"])]
    if ordered:
        ordered[-1]["cache_control"] = dict(STATIC_TTL)
    return ordered
    ### END SOLUTION


def zoned_system(static: str, dynamic: str) -> list[dict[str, Any]]:
    """The static text, cached for 1h; then, in a block of its own, the dynamic text."""
    ### BEGIN SOLUTION 5.4
    blocks = [{"type": "text", "text": static, "cache_control": dict(STATIC_TTL)}]
    if dynamic:
        blocks.append({"type": "text", "text": dynamic})
    return blocks
    ### END SOLUTION


def mark_newest(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Exactly one message breakpoint, on the last non-empty text or other cacheable block of
    the last message; every other message breakpoint removed. Returns a new list; the input is
    never modified. A message that needs no change is passed on as it is, not copied: this runs
    before every request, so its work must not grow with every message of the session."""
    ### BEGIN SOLUTION 5.4
    out = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        elif not any("cache_control" in b for b in content):
            out.append(message)  # nothing to strip: share it
            continue
        out.append(dict(message, content=[{k: v for k, v in b.items() if k != "cache_control"}
                                          for b in content]))
    if not out:
        return out
    newest = [dict(b) for b in out[-1]["content"]]  # the breakpoint goes on copies
    for block in reversed(newest):
        cacheable = block.get("type") not in ("thinking", "redacted_thinking") and not (
            block.get("type") == "text" and not block.get("text"))
        if cacheable:
            block["cache_control"] = dict(MOVING)
            break
    out[-1] = dict(out[-1], content=newest)
    return out
    ### END SOLUTION


def prefix_hash(tools: list[dict[str, Any]], system: list[dict[str, Any]]) -> str:
    """Hash of what must not change between turns: the tools and the static system zone."""
    static = [b for b in system if b.get("cache_control")]
    raw = json.dumps([tools, static], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(raw.encode()).hexdigest()[:16]
