"""The grader's copy of a participant's stage package, and its fingerprint (``ctxlab room``).

``take(package, target)`` copies the package into a folder the grader owns, entry by entry,
reading only folders and regular files: a link (of any kind), a named pipe, a socket or a
device is never opened or followed — the package is refused, with the entry named — and so is
one over ``MAX_BYTES`` or ``MAX_ENTRIES``, counted from what is really read. Names are taken as
bytes, so a name in any encoding is copied as it is. The fingerprint is made from what was
copied (every entry's kind, name bytes and content), so two participants share a graded run
only when their packages are the same file for file; caches (``__pycache__``, ``*.pyc``) are
left out of both.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

MAX_BYTES = 20 * 1024 * 1024  # per stage package (a solved stage 5 is under 200 kB)
MAX_ENTRIES = 2_000
CHUNK = 1 << 20
SKIPPED = (b"__pycache__",)
KINDS = {stat.S_IFLNK: "a link", stat.S_IFIFO: "a named pipe", stat.S_IFSOCK: "a socket",
         stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


class Refused(ValueError):
    """A package the grader will not copy; the message says which entry and why."""


def shown(name: bytes | str) -> str:
    """A file name for a report: UTF-8 as it is, other bytes as ``\\xNN`` escapes."""
    raw = os.fsencode(name)
    return raw.decode("utf-8", "backslashreplace")


def take(package: Path, target: Path) -> str:
    """Copy ``package`` to ``target`` (which must not exist); returns the fingerprint."""
    sha = hashlib.sha256()
    budget = [MAX_BYTES, MAX_ENTRIES]
    top = os.fsencode(package)
    if not stat.S_ISDIR(os.lstat(top).st_mode):
        raise Refused(f"{shown(package.name)} is not a folder")
    _copy_dir(top, os.fsencode(target), b"", sha, budget)
    return sha.hexdigest()


def _copy_dir(source: bytes, target: bytes, rel: bytes, sha: hashlib._Hash,
              budget: list[int]) -> None:
    os.mkdir(target, 0o755)
    with os.scandir(source) as entries:
        names = sorted(entry.name for entry in entries)
    for name in names:
        if name in SKIPPED or name.endswith(b".pyc"):
            continue
        budget[1] -= 1
        if budget[1] < 0:
            raise Refused(f"more than {MAX_ENTRIES} files and folders")
        here, there, inner = (os.path.join(source, name), os.path.join(target, name),
                              os.path.join(rel, name) if rel else name)
        mode = os.lstat(here).st_mode
        if stat.S_ISDIR(mode):
            sha.update(b"d\0" + inner + b"\0")
            _copy_dir(here, there, inner, sha, budget)
        elif stat.S_ISREG(mode):
            sha.update(b"f\0" + inner + b"\0")
            _copy_file(here, there, sha, budget)
            sha.update(b"\0")
        else:
            kind = KINDS.get(stat.S_IFMT(mode), "a special file")
            raise Refused(f"{shown(inner)} is {kind}: only files and folders are graded")


def _copy_file(source: bytes, target: bytes, sha: hashlib._Hash, budget: list[int]) -> None:
    """Copy one regular file, opened without following a link and without blocking (it was
    a regular file when looked at; ``O_NOFOLLOW`` and the check after opening keep it so)."""
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{shown(source)} changed while it was copied")
        if info.st_size > budget[0]:  # said before it is read; the loop counts what is
            raise Refused(f"more than {MAX_BYTES >> 20} MB in the package")
        with open(target, "xb") as sink:
            while chunk := os.read(fd, CHUNK):
                budget[0] -= len(chunk)
                if budget[0] < 0:
                    raise Refused(f"more than {MAX_BYTES >> 20} MB in the package")
                sha.update(chunk)
                sink.write(chunk)
    finally:
        os.close(fd)
