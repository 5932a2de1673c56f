"""Append-only JSON Lines logs side by side in one folder, reached once (§6.9, §12.6).

A session appends to its logs on every request: the frozen decisions, the notes beside them.
``append_jsonl`` walks the path from its root for each append; a ``LogFolder`` reaches the
folder once (``ctxlab.tools.folder.Folder``, whose doc says why a held folder keeps the
no-link guarantee) and appends each log by name, with ``append_jsonl``'s rules: a file that is
a link or has a second hard link is refused, earlier bytes are never rewritten, a torn last
line is kept and the new lines start on a fresh line, each append is fsync'd unless the folder
is ``durability.disposable``. Nothing is created before the first append; ``close()`` (or the
``with`` block, or dropping the object) releases the folder and its logs.

Each log stays open between appends. Before an append, one ``lstat`` of its name in the held
folder checks that the name still is that very file (a regular file with one hard link, the
same inode): a log replaced by a link, given a second hard link, removed or replaced by
another file is opened again by name, with the checks above (so a link is refused, a removed
log starts afresh, as with a fresh open). An append never goes to a file its name no longer
designates. When the ``lstat`` also finds the size this writer left, the last line is its
own, whole: the torn-line check (a read of the last byte) is skipped; any other size (another
writer, a crash's torn line) is checked as on a fresh open.
"""

from __future__ import annotations

import os
import stat
import weakref
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from ctxlab.telemetry.jsonl import append_lines, encode_lines
from ctxlab.tools.durability import must_sync
from ctxlab.tools.folder import Folder


class LogFolder:
    """JSON Lines logs in the folder ``path`` (under the trusted ``root``)."""

    def __init__(self, path: str | os.PathLike[str], *, root: Path | None = None,
                 ensure_ascii: bool = False) -> None:
        self.path = Path(path)
        self.root = root
        self.ensure_ascii = ensure_ascii
        self._folder: Folder | None = None
        self._logs: dict[str, _Held] = {}
        self._closer = weakref.finalize(self, _close_all, self._logs)

    def append(self, name: str, records: list[dict[str, Any]]) -> None:
        """Append ``records`` to the log ``name`` in one write."""
        data = encode_lines(records, self.ensure_ascii)
        if self._folder is None:
            self._folder = Folder(self.path, root=self.root)
        held, size = self._log(self._folder, name)
        held.end = append_lines(held.fd, data, sync=must_sync(os.path.join(self.path, name)),
                                size=size)

    def _log(self, folder: Folder, name: str) -> tuple[_Held, int | None]:
        """The log ``name`` open for appending: the one held since an earlier append while its
        name still designates it, else the file opened by name (``Folder.open``); and its
        size when it ends with this writer's last line (None: to be read)."""
        held = self._logs.get(name)
        if held is not None:
            try:
                info = os.lstat(name, dir_fd=folder.fd)
            except OSError:
                info = None
            if info is not None and stat.S_ISREG(info.st_mode) and info.st_nlink == 1 \
                    and (info.st_dev, info.st_ino) == held.identity:
                return held, info.st_size if info.st_size == held.end else None
            del self._logs[name]
            os.close(held.fd)
        fd = folder.open(name, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        info = os.fstat(fd)
        held = self._logs[name] = _Held(fd, (info.st_dev, info.st_ino))
        return held, None

    def close(self) -> None:
        """Release the folder and the logs (safe to call twice); a later append reaches
        them again."""
        _close_all(self._logs)
        if self._folder is not None:
            self._folder.close()
            self._folder = None

    def __enter__(self) -> LogFolder:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


@dataclass
class _Held:
    """A log kept open: its descriptor, (device, inode), and its size after this writer's
    last append (-1 before any)."""

    fd: int
    identity: tuple[int, int]
    end: int = -1


def _close_all(logs: dict[str, _Held]) -> None:
    """Close every held log (the finalizer's too: it must not hold the ``LogFolder``)."""
    while logs:
        os.close(logs.popitem()[1].fd)
