"""Writing files without following a link out: the one safe-write path (DESIGN §2, §7.4).

A model with an allowed command can plant a symlink (``.task_outputs -> /home/me``) or a hard
link (``notes.txt`` sharing its inode with a file outside) in the workspace. Every write under
the workspace — offloaded results, the session journal, the transcript archive, the side logs,
``write_file``, ``edit_file`` — therefore goes through this module: each directory on the path
is opened relative to its parent's descriptor with ``O_NOFOLLOW``, so a symlink anywhere on the
path is refused, never followed; the final file is opened with ``O_NOFOLLOW`` too, must be a
regular file and must have exactly one hard link. The refusal is an ``UnsafePathError``: a
``ToolError`` (the model reads it as an error result) and a ``ValueError`` (a layer keeps the
result in its context instead of storing it).

``root`` is the folder the walk starts from, trusted as it is (the workspace root, already a
resolved path); without it the walk starts at ``/`` (or the working directory for a relative
path), so no component of the path may be a symlink. A writer that writes in one folder on
every request walks to it once and keeps its descriptor (``ctxlab.tools.folder``); the checks
on the file itself (``open_in``, ``create_once_in``) are the same ones.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path, PurePath

from ctxlab.tools.durability import must_sync
from ctxlab.tools.results import ToolError

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # NONBLOCK: a FIFO cannot hang the open
_LINKS = (errno.ELOOP, errno.EMLINK, errno.ENOTDIR)  # what O_NOFOLLOW says about a symlink


class UnsafePathError(ToolError, ValueError):
    """A write refused because the path holds a link or is not a plain file."""


def components(path: str | os.PathLike[str], root: Path | None, *,
               folder: bool = False) -> tuple[str, list[str]]:
    """The trusted folder to start from and the names below it, ``..`` refused (string
    work only: this runs on every write); none only for a ``folder`` (the root itself)."""
    target = os.fspath(path)
    parts = [p for p in target.split(os.sep) if p and p != "."]
    if root is not None:
        start = os.fspath(root)
        if target.startswith(os.sep):
            base = [p for p in start.split(os.sep) if p and p != "."]
            if not start.startswith(os.sep) or parts[:len(base)] != base:
                raise ValueError(f"{target!r} is not in the subpath of {start!r}")
            parts = parts[len(base):]
    else:
        start = os.sep if target.startswith(os.sep) else "."
    if ".." in parts or not (parts or folder):
        raise UnsafePathError(f"refusing to write {target}: not a file path below {start}")
    return start, parts


def _refuse(shown: PurePath, what: str) -> UnsafePathError:
    return UnsafePathError(f"refusing to use {shown.as_posix()}: it is {what}; files are "
                           "never written or read through links")


def _kind(fd: int, name: str) -> str:
    """What ``name`` in ``fd`` is, for an error message."""
    try:
        info = os.lstat(name, dir_fd=fd)
    except OSError:
        return "not reachable"
    if stat.S_ISLNK(info.st_mode):
        return "a symlink"
    if stat.S_ISDIR(info.st_mode):
        return "a folder"
    return "a file, not a folder" if stat.S_ISREG(info.st_mode) else "not a regular file"


def _walk(start: str, names: list[str], shown: PurePath, create: bool,
          seen: list[os.stat_result] | None = None) -> int:
    """A descriptor of ``start/names...``, each folder opened relative to its parent with
    ``O_NOFOLLOW`` (a link refused); missing folders are created when ``create``. The
    ``fstat`` of each folder opened, ``start`` first, is added to ``seen`` when given."""
    try:
        fd = os.open(start, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        if not create:
            raise
        os.makedirs(start, exist_ok=True)  # the trusted root itself, as the caller named it
        fd = os.open(start, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        if seen is not None:
            seen.append(os.fstat(fd))
        for name in names:
            shown /= name
            try:
                child = os.open(name, _DIR, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o755, dir_fd=fd)
                try:
                    child = os.open(name, _DIR, dir_fd=fd)
                except OSError as error:
                    if error.errno in _LINKS:
                        raise _refuse(shown, _kind(fd, name)) from None
                    raise
            except OSError as error:
                if error.errno in _LINKS:
                    raise _refuse(shown, _kind(fd, name)) from None
                raise
            os.close(fd)
            fd = child
            if seen is not None:
                seen.append(os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def reach(path: str | os.PathLike[str], *, root: Path | None = None, create: bool = True,
          seen: list[os.stat_result] | None = None) -> int:
    """A descriptor of the folder ``path`` itself, reached without following any link
    (created when missing and ``create``); the caller closes it (``ctxlab.tools.folder``).
    ``seen`` gets the ``fstat`` of the root and of each folder below it on the way."""
    start, parts = components(path, root, folder=True)
    return _walk(start, parts, PurePath(), create, seen)


@contextlib.contextmanager
def parent_fd(path: str | os.PathLike[str], *, root: Path | None = None,
              create: bool = True) -> Iterator[tuple[int, str]]:
    """A descriptor of the folder holding ``path`` (reached without following any link) and
    the file's name; missing folders are created when ``create``."""
    start, parts = components(path, root)
    fd = _walk(start, parts[:-1], PurePath(), create)
    try:
        yield fd, parts[-1]
    finally:
        os.close(fd)


def _check_plain(fd: int, shown: str) -> os.stat_result:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(PurePath(shown), "not a regular file")
    if info.st_nlink > 1:
        raise _refuse(PurePath(shown), f"a file with {info.st_nlink} hard links")
    return info


def open_in(folder: int, name: str, flags: int, shown: str, *, mode: int = 0o644) -> int:
    """``os.open`` of the file ``name`` in the folder descriptor ``folder``, never through a
    link; it must be a regular file with one hard link. Returns the descriptor."""
    try:
        fd = os.open(name, flags | _FILE, mode, dir_fd=folder)
    except OSError as error:
        if error.errno in (*_LINKS, errno.ENXIO):
            raise _refuse(PurePath(shown), _kind(folder, name)) from None
        raise
    try:
        _check_plain(fd, shown)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(path: str | os.PathLike[str], flags: int, *, root: Path | None = None,
              mode: int = 0o644) -> int:
    """``os.open`` of ``path`` with ``flags``, every component reached without following a
    link; the file must be a regular file with one hard link. Returns the descriptor."""
    with parent_fd(path, root=root, create=bool(flags & os.O_CREAT)) as (folder, name):
        return open_in(folder, name, flags, str(path), mode=mode)


def write_bytes(path: str | os.PathLike[str], data: bytes, *, root: Path | None = None,
                durable: bool = False) -> None:
    """Create or overwrite ``path`` with ``data`` (checked before anything is truncated);
    ``durable``: fsync'd too, unless the folder is ``durability.disposable``."""
    fd = open_file(path, os.O_WRONLY | os.O_CREAT, root=root)
    try:
        os.ftruncate(fd, 0)
        _write_all(fd, data)
        if durable and must_sync(path):
            os.fsync(fd)
    finally:
        os.close(fd)


def read_bytes(path: str | os.PathLike[str], *, root: Path | None = None) -> bytes:
    """The bytes of ``path``, read without following a link (``UnsafePathError`` otherwise)."""
    fd = open_file(path, os.O_RDONLY, root=root)
    with os.fdopen(fd, "rb") as stream:
        return stream.read()


def create_once(path: str | os.PathLike[str], data: bytes, *,
                root: Path | None = None) -> bool:
    """Store ``data`` under ``path`` unless a complete copy is already there (§7.4).

    The bytes go to a private temporary file beside it, are fsync'd, then hard-linked to the
    name: the link fails when the name exists, so the first complete write wins and a crash
    never leaves a half-written file under the name. Returns whether this call stored it.
    The folder is fsync'd last, so the link is on disk when it returns. In a
    ``durability.disposable`` folder the same steps run without the fsyncs.
    """
    sync = must_sync(path)
    with parent_fd(path, root=root) as (folder, name):
        stored = create_once_in(folder, name, data, str(path), sync=sync)
        if sync:
            os.fsync(folder)
        return stored


def create_once_in(folder: int, name: str, data: bytes, shown: str, *, sync: bool) -> bool:
    """``create_once`` of the file ``name`` in the folder descriptor ``folder``, without the
    folder's fsync: the caller fsyncs the folder once its links must be on disk (after one
    link, or after a batch of them, ``ctxlab.loss.offloads``)."""
    temporary = f".{name}.{secrets.token_hex(6)}.part"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FILE, 0o644,
                 dir_fd=folder)
    try:
        try:
            _write_all(fd, data)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temporary, name, src_dir_fd=folder, dst_dir_fd=folder,
                    follow_symlinks=False)
            stored = True
        except FileExistsError:  # stored before: the first write wins, if it is plain
            stored = False
    finally:
        os.unlink(temporary, dir_fd=folder)
    if not stored:
        info = os.lstat(name, dir_fd=folder)
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
            raise _refuse(PurePath(shown), _kind(folder, name))
        if info.st_nlink > 1:
            raise _refuse(PurePath(shown), f"a file with {info.st_nlink} hard links")
    return stored


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
