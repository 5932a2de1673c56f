"""The raw transcript, archived before a compaction replaces it (ch8.2 L4, guide §9.1).

Everything that leaves the context through a summary is first appended to a JSON Lines file
under ``.transcripts/`` in the workspace: one line per message, flushed and ``fsync``'d before
the history is replaced (``ctxlab.telemetry.append_jsonl``, which refuses a symlink or a
hard-linked file anywhere on the path). Appending never rewrites earlier
bytes, so a crash can at worst leave a torn last line: the next archive starts on a fresh line
and ``read_transcript`` skips it. The agent is never pointed at this file: for the model, what the
summary left out is gone (ch8.2); the archive is for people and tools.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxlab.telemetry import append_jsonl, read_records

TRANSCRIPT = Path(".transcripts") / "session.jsonl"


def archive(root: Path, messages: list[dict[str, Any]]) -> Path:
    """Append ``messages`` to ``root/.transcripts/session.jsonl``, durably; returns its path."""
    return append_jsonl(root / TRANSCRIPT, messages, root=root)  # never through a planted link


def read_transcript(path: Path) -> list[dict[str, Any]]:
    """The archived messages in order; lines that do not parse (a torn write) are skipped."""
    return read_records(path)
