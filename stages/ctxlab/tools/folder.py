"""A folder reached once and kept open: many writes, one walk (DESIGN §2, §6.9, §12.6).

``safe_path`` walks every path from its trusted root, one ``O_NOFOLLOW`` open per folder, on
every write. A writer that appends to the same folder on every request (the session's
decision log and its side logs) pays that walk each time for nothing: the folder has not
moved. A ``Folder`` makes the same walk once, keeps the folder's descriptor and opens its
files by name relative to it (``dir_fd``). Each file open is checked as ``safe_path`` checks
it: ``O_NOFOLLOW``, a regular file, exactly one hard link.

Why the guarantee holds with a held descriptor. The walk refused every link on the way, so
the descriptor is the folder itself, inside the trusted root, not a name for it. A link
planted on the path afterwards (``.ctxlab-session`` replaced by a symlink to ``/home/me``) is
never on the way again: no later write resolves the path, each one names a file directly
inside the held folder, and that name is refused if it is a link or a hard-linked file. So a
write lands in the folder that was checked, or nowhere, never through a link that leads out.
If the folder is renamed, the writes follow it (they are in the folder that was checked). If
it is removed, the kernel refuses to create a file in it, and the write raises
``FolderGoneError`` instead of writing into a folder nobody can see, or silently starting a
new one beside an earlier log that was lost. A holder whose files are named by their path
(the offloaded results, whose placeholders tell the model where to read them) asks
``at_its_path()`` before it uses the folder again, and reaches it afresh when the folder was
moved, removed or replaced: one ``lstat`` per folder on the way instead of the walk.

The descriptor is closed by ``close()`` or the ``with`` block; ``weakref.finalize`` closes it
too when the ``Folder`` is dropped, so a writer that is never closed does not leak it. A
closed folder refuses writes: its descriptor number may already name another file.
"""

from __future__ import annotations

import os
import stat
import weakref
from pathlib import Path
from types import TracebackType

from ctxlab.tools import safe_path
from ctxlab.tools.durability import must_sync


def _identity(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino


class FolderGoneError(FileNotFoundError):
    """The held folder was removed while in use: nothing was written."""


class Folder:
    """The folder ``path`` (under the trusted ``root``, see ``safe_path``), reached without
    following a link and created when missing; its files are opened by name."""

    def __init__(self, path: str | os.PathLike[str], *, root: Path | None = None) -> None:
        self.path = Path(path)
        self.root = root
        seen: list[os.stat_result] = []
        self.fd = safe_path.reach(self.path, root=root, seen=seen)
        self._closer = weakref.finalize(self, os.close, self.fd)
        self._seen = [_identity(info) for info in seen]  # the root, then each folder below

    def at_its_path(self) -> bool:
        """Whether ``path`` still leads to this folder, without a link on the way below the
        root (each folder looked up with ``lstat``, the root as trusted): False once it was
        moved, removed or replaced, or once closed."""
        return not self.closed and self._identities() == self._seen

    def _identities(self) -> list[tuple[int, int]] | None:
        """The (device, inode) of the root and of each folder below it on ``path``, each
        looked up without following a link (a symlink is not a folder: None), or None."""
        start, names = safe_path.components(self.path, self.root, folder=True)
        way = [os.path.join(start, *names[:n]) for n in range(1, len(names) + 1)]
        try:
            found = [os.stat(start), *map(os.lstat, way)]
        except OSError:
            return None
        if not all(stat.S_ISDIR(info.st_mode) for info in found):
            return None
        return [_identity(info) for info in found]

    @property
    def closed(self) -> bool:
        return not self._closer.alive

    def open(self, name: str, flags: int, *, mode: int = 0o644) -> int:
        """``os.open`` of the file ``name`` in this folder with ``flags``: never a link, a
        regular file with one hard link (``UnsafePathError`` otherwise)."""
        shown = self._shown(name)
        try:
            return safe_path.open_in(self.fd, name, flags, shown, mode=mode)
        except FileNotFoundError:
            self._check_there(shown)
            raise

    def create_once(self, name: str, data: bytes) -> bool:
        """``safe_path.create_once`` of the file ``name`` in this folder, but for the
        folder's fsync: the link is on disk after ``sync()`` (one for many links)."""
        shown = self._shown(name)
        try:
            return safe_path.create_once_in(self.fd, name, data, shown,
                                            sync=must_sync(shown))
        except FileNotFoundError:
            self._check_there(shown)
            raise

    def sync(self) -> None:
        """fsync the folder itself, so that the links made in it are on disk (skipped in a
        ``durability.disposable`` folder)."""
        if self.closed:
            raise ValueError(f"{self.path} is closed: nothing can be synced in it")
        if must_sync(self.path):
            os.fsync(self.fd)

    def _shown(self, name: str) -> str:
        """The path of ``name`` in this folder; refused unless a plain name, and once
        closed."""
        if self.closed:
            raise ValueError(f"{self.path} is closed: nothing can be written in it")
        if not name or "/" in name or name in (".", ".."):
            raise safe_path.UnsafePathError(f"refusing to write {name!r} in {self.path}: "
                                            "not a file name")
        return os.path.join(self.path, name)

    def _check_there(self, shown: str) -> None:
        """Raise ``FolderGoneError`` if this folder was removed (a removed folder has no
        links left; the kernel creates nothing in it)."""
        if os.fstat(self.fd).st_nlink == 0:
            raise FolderGoneError(f"{shown}: not written, its folder was removed while in "
                                  "use") from None

    def close(self) -> None:
        """Close the descriptor (safe to call twice)."""
        self._closer()

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
