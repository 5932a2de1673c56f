"""Crash-safe JSON Lines: one object per line, each line on disk before the next (§12.6).

The writer appends, flushes and fsyncs after every record, so a crash can at worst leave the
last line half-written; the reader skips (and counts) such a torn tail instead of failing. In a
folder its owner declared ``ctxlab.tools.durability.disposable`` (deleted afterwards, never
resumed) the lines are written the same way, without the fsync.
Every file is opened through ``ctxlab.tools.safe_path``: never through a symlink, never a file
with a second hard link. ``root`` is the folder the walk trusts (default: none, from ``/``).
Lenient readers (``read_records``) report each line they skip as a warning of the ``ctxlab``
logger, once per file and line.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from ctxlab.tools import safe_path
from ctxlab.tools.durability import must_sync

log = logging.getLogger("ctxlab")
_reported: set[tuple[str, int, str]] = set()


class JsonlWriter:
    """Append JSON objects to ``path``, one per line, durable after each :meth:`write`.

    A torn tail left by an earlier crash is cut off on open, so new lines never fuse with it.
    """

    def __init__(self, path: str | os.PathLike[str], *, ensure_ascii: bool = False,
                 root: Path | None = None) -> None:
        self.path = Path(path)
        self.ensure_ascii = ensure_ascii
        fd = safe_path.open_file(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, root=root)
        self._file = os.fdopen(fd, "a+b")
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
        if must_sync(self.path):
            os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> JsonlWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def append_jsonl(path: str | os.PathLike[str], records: list[dict[str, Any]], *,
                 ensure_ascii: bool = False, root: Path | None = None) -> Path:
    """Append ``records`` in one write and one fsync (none in a disposable folder); returns
    the path.

    Strictly append-only: earlier bytes are never rewritten. A torn last line left by a crash
    is kept (readers skip it) and the new lines start on a fresh line, so it never swallows
    them.
    """
    target = Path(path)
    data = encode_lines(records, ensure_ascii)
    fd = safe_path.open_file(target, os.O_RDWR | os.O_APPEND | os.O_CREAT, root=root)
    try:
        append_lines(fd, data, sync=must_sync(target))
    finally:
        os.close(fd)
    return target


def encode_lines(records: list[dict[str, Any]], ensure_ascii: bool) -> bytes:
    """``records`` as JSON Lines, one object per line."""
    return "".join(json.dumps(r, ensure_ascii=ensure_ascii) + "\n" for r in records).encode()


def append_lines(fd: int, data: bytes, *, sync: bool, size: int | None = None) -> int:
    """Append ``data`` to the file open as ``fd`` (``O_APPEND``) in one write, after a
    newline if a torn last line is there; fsync'd when ``sync``. ``size``: the file's size,
    known to end a line (a caller that wrote the last line itself and sees the same size);
    else it is read. Returns the size after the write, as far as this writer knows."""
    if size is None:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    if sync:
        os.fsync(fd)
    return size + len(data)


def read_records(path: str | os.PathLike[str], *,
                 root: Path | None = None) -> list[dict[str, Any]]:
    """Every JSON object of a log, in order; lines that do not parse are skipped and reported.

    Lenient on purpose, for logs whose readers must survive any crash: a missing file is empty,
    and so is one that cannot be read without following a link (reported too).
    """
    target = Path(path)
    if not os.path.lexists(target):
        return []
    try:
        data = safe_path.read_bytes(target, root=root)
    except (OSError, ValueError) as error:
        _report(target, 0, f"{target}: not read ({error}); treated as empty")
        return []
    found = []
    lines = data.decode("utf-8", errors="replace").split("\n")
    for number, line in enumerate(lines, 1):
        try:
            record = json.loads(line)
        except ValueError:
            if line.strip():
                torn = number == len(lines)
                _report(target, number, f"{target}: line {number} is "
                        f"{'a torn last line' if torn else 'not valid JSON'}; skipped")
            continue
        if isinstance(record, dict):
            found.append(record)
        else:
            _report(target, number, f"{target}: line {number} is not a JSON object; skipped")
    return found


def _report(path: Path, line: int, message: str) -> None:
    """Warn about one skipped line (or an unreadable file, ``line`` 0), once."""
    key = (str(path), line, message)
    if key not in _reported:
        _reported.add(key)
        log.warning("warning: %s", message)


@dataclass
class JsonlContents:
    """What :func:`read_jsonl` found: the complete records and how many torn lines it skipped."""

    records: list[dict[str, Any]] = field(default_factory=list)
    torn_lines: int = 0


def read_jsonl(path: str | os.PathLike[str], *, root: Path | None = None) -> JsonlContents:
    """Read every record of a JSONL file; a torn last line is skipped and counted.

    A line that does not parse anywhere else is real corruption and raises ``ValueError``.
    """
    lines = safe_path.read_bytes(path, root=root).split(b"\n")
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
