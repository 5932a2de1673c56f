"""Reading a Claude Code session log line by line, leniently (real-transcripts §5 step 1).

A session log is JSONL, appended as the session runs: ``~/.claude/projects/<project>/
<session>.jsonl``. Real files hold lines that are not JSON — ``//`` comment lines in published
excerpts, lines cut short by a redaction regex — so a line that does not parse is counted and
skipped, never fatal. Lines are split on ``\\n`` only: ``str.splitlines()`` would also split on
U+2028 and U+0085, which JSON allows raw inside strings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class TranscriptError(ValueError):
    """A file that cannot be replayed at all; the message says why, in one line that follows
    the file's name ("x.jsonl is a binary file, …")."""


@dataclass
class Entry:
    """One parsed line: its 1-based line number and its JSON object."""

    line: int
    data: dict[str, Any]

    @property
    def type(self) -> str:
        return str(self.data.get("type", ""))


@dataclass
class ReadResult:
    """The entries of a file and what was skipped on the way."""

    entries: list[Entry]
    lines: int = 0
    comments: int = 0
    broken: list[int] = field(default_factory=list)  # line numbers that did not parse


def parse_lines(text: str) -> ReadResult:
    """Every JSON object of ``text``; blank lines ignored, ``//`` and broken lines counted."""
    result = ReadResult([])
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        result.lines += 1
        if stripped.startswith("//"):
            result.comments += 1
            continue
        try:
            data = json.loads(stripped, strict=False)
        except (ValueError, RecursionError):
            result.broken.append(number)
            continue
        if isinstance(data, dict):
            result.entries.append(Entry(number, data))
        else:
            result.broken.append(number)
    return result


def read_lines(path: Path) -> ReadResult:
    """``parse_lines`` of a file; ``TranscriptError`` when it cannot be read as text."""
    if path.is_dir():
        raise TranscriptError("is a directory, not a session log")
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise TranscriptError(f"cannot be read: {error.strerror or error}") from None
    if b"\x00" in raw[:4096]:
        raise TranscriptError("is a binary file, not a JSONL session log")
    return parse_lines(raw.decode("utf-8", errors="replace"))
