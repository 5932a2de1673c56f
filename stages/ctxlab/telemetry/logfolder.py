"""Append-only JSON Lines logs side by side in one folder, reached once (§6.9, §12.6).

A session appends to its logs on every request: the frozen decisions, the notes beside them.
``append_jsonl`` walks the path from its root for each append; a ``LogFolder`` reaches the
folder once (``ctxlab.tools.folder.Folder``, whose doc says why a held folder keeps the
no-link guarantee) and appends each log by name, with ``append_jsonl``'s rules: a file that is
a link or has a second hard link is refused, earlier bytes are never rewritten, a torn last
line is kept and the new lines start on a fresh line, each append is fsync'd unless the folder
is ``durability.disposable``. Nothing is created before the first append; ``close()`` (or the
``with`` block, or dropping the object) releases the folder.
"""

from __future__ import annotations

import os
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

    def append(self, name: str, records: list[dict[str, Any]]) -> None:
        """Append ``records`` to the log ``name`` in one write."""
        data = encode_lines(records, self.ensure_ascii)
        if self._folder is None:
            self._folder = Folder(self.path, root=self.root)
        fd = self._folder.open(name, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        try:
            append_lines(fd, data, sync=must_sync(os.path.join(self.path, name)))
        finally:
            os.close(fd)

    def close(self) -> None:
        """Release the folder (safe to call twice); a later append reaches it again."""
        if self._folder is not None:
            self._folder.close()
            self._folder = None

    def __enter__(self) -> LogFolder:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
