"""A layer tried from outside against the oracle: it keeps only a result's finding lines.

What an engineer might write after reading the task, knowing nothing of the plan: each tool
result is shown whole in the request that delivers it; afterwards a command's output is cut
to the lines a grep for report words finds (``FINDINGS``), and file reads stay whole (the
agent edits what it read). No fact is known to it, so it keeps more lines than the oracle,
and a finding worded otherwise is lost.
"""

from __future__ import annotations

import re
from typing import Any

FINDINGS = re.compile(r"\b(report|review|owner|baseline|FAIL|PASSED|error|total)\b", re.I)
Messages = list[dict[str, Any]]


class FindingLines:
    """Older command output cut to its finding lines."""

    def __init__(self) -> None:
        self.shown: set[str] = set()

    def prepare(self, messages: Messages, session: Any) -> Messages:
        reads = {b["id"] for m in messages if m["role"] == "assistant"
                 for b in m["content"] if b.get("type") == "tool_use"
                 and b.get("name") != "run_command"}
        out = []
        for message in messages:
            if message["role"] != "user" or isinstance(message["content"], str):
                out.append(message)
                continue
            blocks = []
            for block in message["content"]:
                uid = block.get("tool_use_id")
                if block.get("type") == "tool_result" and uid not in reads \
                        and uid in self.shown and isinstance(block.get("content"), str):
                    lines = [x for x in block["content"].splitlines() if FINDINGS.search(x)]
                    block = {**block, "content": "\n".join(lines) or "[no finding]"}
                blocks.append(block)
            out.append({**message, "content": blocks})
        self.shown |= {b["tool_use_id"] for m in messages if m["role"] == "user"
                       and not isinstance(m["content"], str)
                       for b in m["content"] if b.get("type") == "tool_result"}
        return out

    def admit(self, results: Messages, session: Any) -> Messages:
        return results


def make_layer() -> FindingLines:
    """The ``--layer`` factory: ``tests/peers/finding_lines.py:make_layer``."""
    return FindingLines()
