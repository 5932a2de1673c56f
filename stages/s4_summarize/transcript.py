"""The raw transcript, archived before a compaction replaces it (ch8.2 L4, guide §9.1).

Everything that leaves the context through a summary is first appended to a JSON Lines file
under ``.transcripts/`` in the workspace: one line per message, written in one append and
``fsync``'d before the history is replaced. Appending never rewrites earlier bytes, so a crash
can at worst leave a torn last line; the next archive starts on a fresh line and
``read_transcript`` skips what does not parse. The agent is never pointed at this file: for
the model, what the summary left out is gone (ch8.2); the archive is for people and tools.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

TRANSCRIPT = Path(".transcripts") / "session.jsonl"


def archive(root: Path, messages: list[dict[str, Any]]) -> Path:
    """Append ``messages`` to ``root/.transcripts/session.jsonl``, durably; returns its path."""
    path = root / TRANSCRIPT
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages).encode()
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":  # a torn line: do not extend it
            data = b"\n" + data
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def read_transcript(path: Path) -> list[dict[str, Any]]:
    """The archived messages in order; lines that do not parse (a torn write) are skipped."""
    messages = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            messages.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return messages
