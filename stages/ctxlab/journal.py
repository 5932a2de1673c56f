"""The session journal: the history of every agent request, so a killed run can resume (§6.9).

The runner appends one JSON line per agent request to ``.ctxlab-session/history.jsonl`` in the
workspace, next to stage 5's frozen decisions: how many messages of the previous request the
new one keeps unchanged, and the messages that follow them. Each line is flushed and fsync'd
before the run goes on, so a crash loses at most the line being written, and a torn last line
is cut off before the next append (``JsonlWriter``). Lines are pure ASCII JSON, so any text a
model or a tool produced can be written.

``resume_point(root)`` folds the lines back into the last history that was sent, with every
tool call ever made (to tell the scenario's follow-ups what already ran). Resuming re-sends
that history: the layer that prepared it prepares it again over the same workspace — stage 5
reloads its frozen decisions — so the request is byte-identical to the last one sent before
the crash, and the prefix cache of that request still applies.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .telemetry import JsonlWriter, read_jsonl

JOURNAL = Path(".ctxlab-session") / "history.jsonl"
Messages = list[dict[str, Any]]


class JournalError(ValueError):
    """A journal that cannot be resumed from; the message says why, in one line."""


def _shared(old: Messages, new: Messages) -> int:
    """How many leading messages ``old`` and ``new`` have in common."""
    n = 0
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        n += 1
    return n


class Journal:
    """Appends each request's history as a delta against the previous one."""

    def __init__(self, root: Path) -> None:
        self.path = Path(root) / JOURNAL
        self._writer: JsonlWriter | None = None
        self._last: Messages = []
        self.requests = 0

    def start_from(self, messages: Messages) -> None:
        """Continue a resumed journal: ``messages`` is the last history it holds."""
        self._last = copy.deepcopy(messages)

    def sent(self, messages: Messages) -> None:
        """Record the history of one agent request, durably."""
        keep = _shared(self._last, messages)
        if self._writer is None:
            self._writer = JsonlWriter(self.path, ensure_ascii=True)
        self._writer.write({"keep": keep, "add": messages[keep:]})
        self._last = copy.deepcopy(messages)
        self.requests += 1

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


@dataclass
class ResumePoint:
    """Where a journal ends: the last history sent, and what ran before it."""

    history: Messages
    requests: int
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (name, input)
    tool_names: dict[str, str] = field(default_factory=dict)  # tool_use id → name
    torn_lines: int = 0


def resume_point(root: str | os.PathLike[str]) -> ResumePoint:
    """The last history in ``root``'s journal; ``JournalError`` when there is none to resume."""
    path = Path(root) / JOURNAL
    if not path.is_file():
        raise JournalError(f"{root} holds no session journal ({JOURNAL}): nothing to resume")
    try:
        contents = read_jsonl(path)
    except ValueError as error:
        raise JournalError(f"the session journal is corrupt: {error}") from None
    history: Messages = []
    point = ResumePoint(history, 0, torn_lines=contents.torn_lines)
    for number, entry in enumerate(contents.records, 1):
        keep, add = entry.get("keep") if isinstance(entry, dict) else None, (
            entry.get("add") if isinstance(entry, dict) else None)
        if not isinstance(keep, int) or not isinstance(add, list) or not 0 <= keep <= len(
                history) or not all(isinstance(m, dict) and "role" in m for m in add):
            raise JournalError(f"the session journal is corrupt: entry {number} of {path} "
                               "is not a history delta")
        history = history[:keep] + add
        for message in add:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    point.calls.append((str(block.get("name")), dict(block.get("input") or {})))
                    point.tool_names[str(block.get("id"))] = str(block.get("name"))
    if not history:
        raise JournalError(f"the session journal {path} holds no request: nothing to resume")
    point.history, point.requests = history, len(contents.records)
    return point
