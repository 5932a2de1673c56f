# Generated from solutions/s5_pipeline/zones.py — your exercise: edit it.
# `ctxlab workbook reset 5` regenerates it (your version is backed up first).
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
    raise NotImplementedError("Exercise 5.4 — zoned_tools(): see notebooks/05_pipeline.ipynb")


def zoned_system(static: str, dynamic: str) -> list[dict[str, Any]]:
    """The static text, cached for 1h; then, in a block of its own, the dynamic text."""
    raise NotImplementedError("Exercise 5.4 — zoned_system(): see notebooks/05_pipeline.ipynb")


def mark_newest(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Exactly one message breakpoint, on the last non-empty text or other cacheable block of
    the last message; every other message breakpoint removed. Returns a new list; the input is
    never modified. A message that needs no change is passed on as it is, not copied: this runs
    before every request, so its work must not grow with every message of the session."""
    raise NotImplementedError("Exercise 5.4 — mark_newest(): see notebooks/05_pipeline.ipynb")


def prefix_hash(tools: list[dict[str, Any]], system: list[dict[str, Any]]) -> str:
    """Hash of what must not change between turns: the tools and the static system zone."""
    static = [b for b in system if b.get("cache_control")]
    raw = json.dumps([tools, static], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(raw.encode()).hexdigest()[:16]
