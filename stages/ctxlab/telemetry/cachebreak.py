"""Cache-break attribution (guide §12.6): our bug, or the cache's lifetime?

A drop in cache reads has two causes with different fixes: the prefix we sent changed
(a compaction, or a byte that moved — fix the code) or the entry expired while the agent was
idle (not a bug). A break right after a compaction is expected and is not alerted; one
with neither explanation is the interesting one.
"""

from __future__ import annotations

from typing import Any

from .record import TurnRecord
from .summary import ADMISSION_LAYERS

TTL_S = 300.0
DROP = 0.5  # a read below half of what the previous call cached counts as a break


def _compacted(record: TurnRecord) -> bool:
    """A layer rewrote the history (offloading new results leaves the prefix alone)."""
    return any(e["layer"] not in ADMISSION_LAYERS for e in record.compactions)


def cache_breaks(records: list[TurnRecord], *, ttl_s: float = TTL_S) -> list[dict[str, Any]]:
    """One entry per agent call whose cache read fell well below the previous call's prefix."""
    agent = [r for r in records if r.kind == "agent" and not r.error]
    found = []
    for before, after in zip(agent, agent[1:], strict=False):
        expected = before.cache_read_tokens + before.cache_write_tokens
        if expected == 0 or after.cache_read_tokens >= DROP * expected:
            continue
        if _compacted(after) or _compacted(before):
            cause, alert = "compaction (expected)", False
        elif after.clock - before.clock > ttl_s:
            cause, alert = "ttl expiry (idle)", False
        else:
            cause, alert = "prefix changed (our bug)", True
        found.append({"turn": after.turn, "expected_read": expected,
                      "read": after.cache_read_tokens, "cause": cause, "alert": alert})
    return found
