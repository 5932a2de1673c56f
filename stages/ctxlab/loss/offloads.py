"""Writing offloaded files, one at a time or in a batch (§7.4, §12.6).

``write_offloaded`` is the bench's writer for stage 3's offload store. Each file is stored once
by ``Folder.create_once`` (a private temporary file, fsync'd, then linked to its name: the link
fails when the name exists, so the first complete write wins and a crash never leaves a
half-written file under a name; never through a link, never a hard-linked file). Then the
folder is fsync'd, so the link is on disk, and only then is the SHA-256 of what was stored
appended to ``.ctxlab-session/offloaded.jsonl`` (``LogFolder``): a recorded checksum always
names a file that is there.

A layer that offloads several results at once (stage 5's band clears about seven per batch)
wraps them in ``offload_batch(root)``. Every ``write_offloaded`` under ``root`` inside the
block, including the one a learner's ``offload`` makes, joins the batch: the files are
written and linked as they come (each temporary file fsync'd before its link), the folder
is reached once and fsync'd once at the end of the block, then all the checksums are
appended in one write and one fsync: k + 2 fsyncs for k files instead of 3k, and the same
order of guarantees. The caller records its decisions (which name the files) after the
block. A layer that saves copies on many requests of one session keeps its folders open
across batches (``OffloadFolders``, held by stage 5's ledger, ``held.batch()``): each folder
is walked to once a session, and before a batch uses it again one ``lstat`` per folder on the
way checks that its path still leads to it (``Folder.at_its_path``); a folder that was moved,
removed or replaced by a link is walked to afresh, so every file lands under the path its
placeholder names, never through a link. The checksums are appended through the owner's
``LogFolder`` of ``.ctxlab-session``, whose doc says why a held folder keeps the no-link rule.

An error or a crash halfway. If the block raises, its end still runs: every file linked
so far is made durable and gets its checksum, then the error goes on, so the files on disk
and their checksums agree, as they do after the same error without a batch. If the process
dies inside the block, files linked so far may be on disk without a checksum; nothing
recorded names them (neither the checksums nor the caller's decisions, which come later),
so no loss is reported and a later write of the same id keeps the file already there.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from ..telemetry import LogFolder
from ..tools.folder import Folder
from .checksums import CHECKSUMS

_active: ContextVar[OffloadBatch | None] = ContextVar("offload_batch", default=None)


class OffloadFolders:
    """The workspace ``root``'s offload folders and its checksum log, reached once and held
    across batches by whoever owns them for a session (stage 5's ledger); ``close()`` (or
    dropping the object) releases them. A folder moved, removed or replaced since it was
    reached (``Folder.at_its_path``) is reached afresh, so each file is stored under the path
    its placeholder names, never through a link. ``logs`` is the ``LogFolder`` of
    ``.ctxlab-session`` to append the checksums to (the owner's own, when it has one)."""

    def __init__(self, root: str | os.PathLike[str], *, logs: LogFolder | None = None) -> None:
        self.root = Path(root)
        self.logs = logs if logs is not None else LogFolder(
            self.root / CHECKSUMS.parent, root=self.root, ensure_ascii=True)
        self._folders: dict[Path, Folder] = {}

    def folder(self, relative: Path) -> Folder:
        """The folder ``relative`` (to the root), checked to be at its path."""
        held = self._folders.get(relative)
        if held is None or not held.at_its_path():
            if held is not None:
                held.close()
            held = self._folders[relative] = Folder(self.root / relative, root=self.root)
        return held

    def batch(self) -> contextlib.AbstractContextManager[OffloadBatch]:
        """``offload_batch`` through these folders (they stay held after it)."""
        return offload_batch(self.root, held=self)

    def close(self) -> None:
        """Release the folders and the checksum log (safe to call twice)."""
        for folder in self._folders.values():
            folder.close()
        self._folders.clear()
        self.logs.close()

    def __enter__(self) -> OffloadFolders:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class OffloadBatch:
    """Offloaded files under the workspace ``root`` whose folder fsync and checksums wait for
    ``finish()``."""

    def __init__(self, held: OffloadFolders) -> None:
        self.root = held.root
        self._held = held
        self._folders: dict[Path, Folder] = {}
        self._records: list[dict[str, Any]] = []

    def write(self, relative: Path, text: str) -> Path:
        """Store ``text`` (UTF-8) as ``root/relative`` unless stored before; the path."""
        data = text.encode("utf-8")
        folder = self._folders.get(relative.parent)
        if folder is None:  # checked once a batch
            folder = self._folders[relative.parent] = self._held.folder(relative.parent)
        if folder.create_once(relative.name, data):
            self._records.append({"path": relative.as_posix(), "bytes": len(data),
                                  "sha256": hashlib.sha256(data).hexdigest()})
        return self.root / relative

    def finish(self) -> None:
        """Put the links on disk (one fsync per folder), then append the checksums of the
        files stored (one write, one fsync)."""
        folders, records = list(self._folders.values()), self._records
        self._folders, self._records = {}, []
        for folder in folders:
            folder.sync()
        if records:
            self._held.logs.append(CHECKSUMS.name, records)


@contextlib.contextmanager
def offload_batch(root: str | os.PathLike[str], *,
                  held: OffloadFolders | None = None) -> Iterator[OffloadBatch]:
    """Within the block, ``write_offloaded`` under ``root`` joins one batch, finished when
    the block ends, by an error too. Blocks nest; an inner one finishes on its own. The
    folders are ``held``'s when given (kept after the block), else reached for the block."""
    folders = OffloadFolders(root) if held is None else held
    batch = OffloadBatch(folders)
    token = _active.set(batch)
    try:
        yield batch
    finally:
        _active.reset(token)
        try:
            batch.finish()
        finally:
            if held is None:
                folders.close()


def write_offloaded(root: Path, relative: Path, text: str) -> Path:
    """Store ``text`` (UTF-8) as ``root/relative`` once, recording its checksum; the path.
    Inside ``offload_batch(root)`` the folder fsync and the checksum wait for its end."""
    batch = _active.get()
    if batch is not None and batch.root == Path(root):
        return batch.write(relative, text)
    with offload_batch(root) as alone:
        return alone.write(relative, text)
