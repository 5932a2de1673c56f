"""Crash-safe JSON Lines: one object per line, each line on disk before the next (§12.6).

The writer appends, flushes and fsyncs after every record, so a crash can at worst leave the
last line half-written; the reader skips (and counts) such a torn tail instead of failing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any


class JsonlWriter:
    """Append JSON objects to ``path``, one per line, durable after each :meth:`write`.

    A torn tail left by an earlier crash is cut off on open, so new lines never fuse with it.
    """

    def __init__(self, path: str | os.PathLike[str], *, ensure_ascii: bool = False) -> None:
        self.path = Path(path)
        self.ensure_ascii = ensure_ascii
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a+b")
        self._drop_torn_tail()

    def _drop_torn_tail(self) -> None:
        self._file.seek(0)
        data = self._file.read()
        if data and not data.endswith(b"\n"):
            self._file.truncate(data.rfind(b"\n") + 1)

    def write(self, record: dict[str, Any]) -> None:
        """Append one record and force it to disk."""
        line = json.dumps(record, ensure_ascii=self.ensure_ascii, separators=(",", ":")) + "\n"
        self._file.write(line.encode("utf-8"))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> JsonlWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def append_jsonl(path: str | os.PathLike[str], records: list[dict[str, Any]], *,
                 ensure_ascii: bool = False) -> Path:
    """Append ``records`` in one write and one fsync; returns the path.

    Strictly append-only: earlier bytes are never rewritten. A torn last line left by a crash
    is kept (readers skip it) and the new lines start on a fresh line, so it never swallows
    them.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, ensure_ascii=ensure_ascii) + "\n" for r in records).encode()
    fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    return target


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every JSON object of a log, in order; lines that do not parse (torn) are skipped.

    Lenient on purpose, for logs whose readers must survive any crash: a missing file is empty.
    """
    target = Path(path)
    if not target.exists():
        return []
    found = []
    for line in target.read_text(encoding="utf-8", errors="replace").split("\n"):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            found.append(record)
    return found


@dataclass
class JsonlContents:
    """What :func:`read_jsonl` found: the complete records and how many torn lines it skipped."""

    records: list[dict[str, Any]] = field(default_factory=list)
    torn_lines: int = 0


def read_jsonl(path: str | os.PathLike[str]) -> JsonlContents:
    """Read every record of a JSONL file; a torn last line is skipped and counted.

    A line that does not parse anywhere else is real corruption and raises ``ValueError``.
    """
    lines = Path(path).read_bytes().split(b"\n")
    contents = JsonlContents()
    last = len(lines)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            contents.records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if number != last:
                raise ValueError(f"{path}: line {number} is not valid JSON: {exc}") from exc
            contents.torn_lines += 1
    return contents
