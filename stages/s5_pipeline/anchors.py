"""Anchor coverage: a cheap quality check on every summary (guide §12.5).

Before a summary replaces a stretch of history, collect its anchors — the paths the agent
touched, the distinctive words of what the user wrote, the error lines it saw — and check
which of them the summary still mentions. Below 0.5 the summary is suspect; the missing
anchors (up to 10) are the evidence of what was lost. It cannot tell whether the summary got
cause and effect right — only probes can (§12.5) — but it costs no model call.
"""

from __future__ import annotations

import re
from typing import Any

from s4_summarize import ATTACHMENT_HEADER, SUMMARY_HEADER

from .constraints import HEADER as REINJECTED

WARN_BELOW = 0.5
SAMPLES = 10
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{3,}|[\u4e00-\u9fff]{2,}")
OWN_TEXT = ("[", SUMMARY_HEADER, ATTACHMENT_HEADER, REINJECTED)
"""What the context layer itself writes into user messages: notes, summaries, attachments."""
STOP = frozenset({"this", "that", "with", "from", "have", "will", "would", "should", "please",
                  "there", "their", "then", "than", "them", "what", "when", "which", "while",
                  "about", "after", "before", "into", "only", "also", "make", "sure", "does"})


def anchors(messages: list[dict[str, Any]]) -> list[str]:
    """Paths from tool calls, user keywords and error lines of ``messages``, deduplicated."""
    found: list[str] = []
    for message in messages:
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            if block.get("type") == "tool_use" and "path" in block.get("input", {}):
                found.append(block["input"]["path"])
            elif (block.get("type") == "text" and message["role"] == "user"
                  and not block["text"].startswith(OWN_TEXT)):
                found += [w for w in WORD.findall(block["text"]) if w.lower() not in STOP]
            elif block.get("type") == "tool_result" and block.get("is_error"):
                found.append(str(block.get("content"))[:60])
    return list(dict.fromkeys(found))


def coverage(before: list[dict[str, Any]], summary_text: str) -> dict[str, Any]:
    """Share of ``before``'s anchors that appear in ``summary_text``, and what is missing."""
    wanted = anchors(before)
    missing = [a for a in wanted if a not in summary_text]
    share = 1.0 if not wanted else 1 - len(missing) / len(wanted)
    return {"anchors": len(wanted), "coverage": round(share, 3), "warn": share < WARN_BELOW,
            "missing": missing[:SAMPLES]}
