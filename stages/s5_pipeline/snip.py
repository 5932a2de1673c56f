# Generated from solutions/s5_pipeline/snip.py — your exercise: edit it.
# `ctxlab workbook reset 5` regenerates it (your version is backed up first).
"""Exercise 5.2 — snip: keep the head and the tail, drop the middle (excerpt ch8.2 L1, §7.2 ②).

The two ends of a conversation are worth the most: the head holds the task, the tail the
current work. Keep the first 3 and the last 47 messages, and cut only at API round
boundaries so every ``tool_use`` keeps its ``tool_result`` (§9.2). A short note in the head
says that something was left out.
"""

from __future__ import annotations

from typing import Any

from s2_truncate import api_rounds

KEEP_FIRST = 3
KEEP_LAST = 47
Messages = list[dict[str, Any]]


def snip(messages: Messages, keep_first: int = KEEP_FIRST,
         keep_last: int = KEEP_LAST) -> tuple[Messages, int]:
    """Drop the middle of ``messages``; returns (new messages, number of messages dropped).

    The head is the first rounds covering at least ``keep_first`` messages; the tail starts at
    the latest round start that leaves at least ``keep_last`` messages. If head and tail meet
    or overlap, nothing is dropped (return the list unchanged and 0). Otherwise append a text
    block ``"[N earlier messages were snipped to save space]"`` to the head's last message
    (a user message: text after its tool results is valid) — copy that message, do not modify
    the input.
    """
    raise NotImplementedError("Exercise 5.2 — snip(): see notebooks/05_pipeline.ipynb")
