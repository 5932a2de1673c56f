"""A run written as a Claude Code session log (real-transcripts §4; DESIGN §4 "export").

Not the telemetry log (``SessionLog``, one record per model call): this is the conversation
itself, in the shape Claude Code writes to ``~/.claude/projects/<project>/<session>.jsonl`` —
one content block per ``assistant`` line, the lines of a response sharing ``message.id`` and
its usage, one ``tool_result`` per ``user`` line — so ``ctxlab calibrate`` and ``ctxlab
replay`` read a simulated run exactly as they read a real session. Tool names stay the
bench's (``read_file``, …); ``ctxlab.kinds`` maps both vocabularies. Summary calls are not
part of the conversation (Claude Code logs them apart) and are left out.

Every line is on disk before the next is written (``JsonlWriter``): a crash loses at most the
line being written, never one already there.
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .jsonl import JsonlWriter

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
"""Simulated clock zero, as a date (the log needs timestamps; the run has only its clock)."""
VERSION = "ctxlab-export"


class ClaudeCodeLog:
    """Feed it the run's original history as it grows (``catch_up``) and each agent response
    (``response``); ``close`` writes what is left."""

    def __init__(self, path: str | os.PathLike[str], *, session: str) -> None:
        self.path = Path(path)
        self._writer = JsonlWriter(self.path)
        self._session = str(uuid.uuid5(uuid.NAMESPACE_URL, f"ctxlab:{session}"))
        self._count = 0
        self._parent: str | None = None
        self._at = 0.0
        self._messages = 0  # messages of the history fully written
        self._blocks = 0    # blocks written of the message after them

    def _line(self, kind: str, message: dict[str, Any], **extra: Any) -> None:
        self._count += 1
        line_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self._session}:{self._count}"))
        stamp = (EPOCH + timedelta(seconds=self._at)).isoformat(timespec="milliseconds")
        self._writer.write({"parentUuid": self._parent, "isSidechain": False,
                            "userType": "external", "cwd": ".", "sessionId": self._session,
                            "version": VERSION, "type": kind, "message": message,
                            "uuid": line_id, "timestamp": stamp.replace("+00:00", "Z"),
                            **extra})
        self._parent = line_id

    def catch_up(self, history: list[dict[str, Any]], at: float | None = None) -> None:
        """Write the user blocks of ``history`` not written yet, one block per line."""
        if at is not None:
            self._at = at
        while self._messages < len(history):
            message = history[self._messages]
            content = message["content"]
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for block in blocks[self._blocks:]:
                self._line(message["role"], {"role": message["role"], "content": [block]})
            self._blocks = len(blocks)
            if self._messages == len(history) - 1:
                return  # the last message may still grow (more results to come)
            self._messages += 1
            self._blocks = 0

    def response(self, message: dict[str, Any], at: float | None = None) -> None:
        """One agent response (``id``, ``model``, ``content``, ``usage``, ``stop_reason``),
        written as Claude Code does: a line per block, all with the response's usage. Call it
        after ``catch_up`` and before the history holds the response."""
        if at is not None:
            self._at = at
        if self._blocks:  # the user message before it is complete now
            self._messages += 1
            self._blocks = 0
        blocks = message.get("content") or []
        for i, block in enumerate(blocks):
            last = i == len(blocks) - 1
            self._line("assistant", {
                "id": message.get("id"), "type": "message", "role": "assistant",
                "model": message.get("model"), "content": [block],
                "stop_reason": message.get("stop_reason") if last else None,
                "stop_sequence": None, "usage": message.get("usage")})
        self._messages += 1  # the response itself, which the history appends next

    def close(self, history: list[dict[str, Any]] | None = None) -> None:
        if history is not None:
            self.catch_up(history)
        self._writer.close()
