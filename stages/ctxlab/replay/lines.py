"""Reading a Claude Code session log line by line, leniently (real-transcripts §5 step 1).

A session log is JSONL, appended as the session runs: ``~/.claude/projects/<project>/
<session>.jsonl``. Real files hold lines that are not JSON — ``//`` comment lines in published
excerpts, lines cut short by a redaction regex — so a line that does not parse is counted and
skipped, never fatal; so is a line whose JSON escapes a lone surrogate (``"\\ud800"``: valid
JSON, but no text, so nothing could encode or count it), and a user or assistant line whose
``message`` is not an object (a string, a list: no role, no content blocks to replay). Lines
are split on ``\\n`` only: ``str.splitlines()`` would also split on U+2028 and U+0085, which
JSON allows raw inside strings. Only regular files are read (a named pipe would hang the
reader, ``/dev/zero`` would fill the memory), and only up to ``MAX_BYTES`` (256 MB, far above
a real session; ``ctxlab replay --max-bytes`` changes it).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

MAX_BYTES = 256 * 1024 * 1024
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


class TranscriptError(ValueError):
    """A file that cannot be replayed at all; the message says why, in one line that follows
    the file's name ("x.jsonl is a binary file, …")."""


def seconds(timestamp: Any) -> float | None:
    """An ISO timestamp (``2026-01-21T15:30:16.888Z``) as epoch seconds, None when unreadable."""
    try:
        return datetime.fromisoformat(str(timestamp)).timestamp()
    except ValueError:
        return None


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
        if isinstance(data, dict) and not _lone_surrogate(stripped, data) \
                and not _shapeless_message(data):
            result.entries.append(Entry(number, data))
        else:
            result.broken.append(number)
    return result


def _shapeless_message(data: dict[str, Any]) -> bool:
    """Whether a conversation line carries a ``message`` that is not a JSON object."""
    return data.get("type") in ("user", "assistant") and "message" in data \
        and not isinstance(data["message"], dict)


def _lone_surrogate(line: str, data: dict[str, Any]) -> bool:
    """Whether a parsed line holds a surrogate that is not half of a pair."""
    if not _SURROGATE.search(line):
        return False
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_file(path: Path, max_bytes: int = MAX_BYTES) -> int:
    """The size of ``path``; ``TranscriptError`` unless it is a regular file of at most
    ``max_bytes`` bytes."""
    try:
        info = os.stat(path)
    except OSError as error:
        raise TranscriptError(f"cannot be read: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise TranscriptError("is a directory, not a session log")
    if not stat.S_ISREG(info.st_mode):
        raise TranscriptError("is not a regular file (a named pipe, a device, a socket), "
                              "not a session log")
    if info.st_size > max_bytes:
        raise TranscriptError(f"is {info.st_size:,} bytes, over the {max_bytes:,}-byte limit "
                              "(--max-bytes raises it)")
    return info.st_size


def read_lines(path: Path, max_bytes: int = MAX_BYTES) -> ReadResult:
    """``parse_lines`` of a file; ``TranscriptError`` when it cannot be read as text."""
    check_file(path, max_bytes)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # swapped for a pipe since: no hang
        with os.fdopen(fd, "rb") as stream:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise TranscriptError("is not a regular file, not a session log")
            raw = stream.read(max_bytes + 1)
    except OSError as error:
        raise TranscriptError(f"cannot be read: {error.strerror or error}") from None
    if len(raw) > max_bytes:
        raise TranscriptError(f"grew over the {max_bytes:,}-byte limit while it was read")
    if b"\x00" in raw[:4096]:
        raise TranscriptError("is a binary file, not a JSONL session log")
    return parse_lines(raw.decode("utf-8", errors="replace"))
