"""Finding a room's submissions: checkouts, folders of them, archives of ``stages/``.

A PATH is a checkout (it has ``stages/`` with a stage package), a bare ``stages/`` folder, an
archive (``.zip``, ``.tar``, ``.tar.gz``, ``.tgz``, ``.tar.bz2``, ``.tar.xz``) holding either, or
a folder whose entries are any of those. An archive is unpacked member by member into a folder
of its own: a member whose path is absolute or climbs out with ``..``, a link, a device or a
FIFO is refused (and said so), and sizes are capped, so nothing is written outside that folder.
An archive that cannot be unpacked whole — damaged, two members of one name, over the size or
member limit — is that participant's ``rejected`` row; the rest of the room is still graded.
"""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..workbook.layout import BY_PACKAGE
from .copying import shown

ARCHIVES = (".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".tar", ".zip")
MAX_BYTES = 100 * 1024 * 1024  # unpacked, per archive
MAX_MEMBERS = 10_000


class SubmissionError(ValueError):
    """A PATH that is not a submission, or an archive that cannot be unpacked."""


@dataclass
class Submission:
    """One participant's work: where their stage packages are, and their checkout if any."""

    name: str
    source: Path
    stages: Path | None  # the folder holding s1_loop/ … (None: nothing usable found)
    checkout: Path | None = None  # a whole checkout: its tests are compared with ours
    notes: list[str] = field(default_factory=list)
    rejected: str | None = None  # why its archive could not be unpacked


def is_archive(path: Path) -> bool:
    return path.is_file() and path.name.lower().endswith(ARCHIVES)


def _stem(path: Path) -> str:
    lower = path.name.lower()
    return next((path.name[: -len(s)] for s in ARCHIVES if lower.endswith(s)), path.name)


def holds_stages(folder: Path) -> bool:
    """Whether ``folder`` directly holds a stage package."""
    return any((folder / package / "__init__.py").is_file() for package in BY_PACKAGE)


def _locate(folder: Path, depth: int = 3) -> tuple[Path | None, Path | None]:
    """(stages folder, checkout) found at or below ``folder``."""
    if (folder / "stages").is_dir() and holds_stages(folder / "stages"):
        return folder / "stages", folder if (folder / "tests").is_dir() else None
    if holds_stages(folder):
        return folder, None
    if depth:
        for child in sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()):
            found = _locate(child, depth - 1)
            if found[0] is not None:
                return found
    return None, None


def discover(paths: list[Path], work: Path) -> list[Submission]:
    """Every submission named by ``paths``; archives are unpacked below ``work``."""
    found: list[Submission] = []
    for path in paths:
        if not path.exists():
            raise SubmissionError(f"{path}: no such file or folder")
        if is_archive(path) or (path.is_dir() and _locate(path, 0)[0] is not None):
            found.append(_one(path, work))
        elif path.is_dir():
            entries = [p for p in sorted(path.iterdir()) if p.is_dir() or is_archive(p)]
            found += [_one(p, work) for p in entries if not p.name.startswith(".")]
        else:
            raise SubmissionError(f"{path}: not a checkout, a stages/ folder, an archive "
                                  f"({', '.join(ARCHIVES)}) or a folder of them")
    names: dict[str, int] = {}
    for submission in found:  # two submissions with the same name get numbered
        count = names.get(submission.name, 0)
        names[submission.name] = count + 1
        if count:
            submission.name = f"{submission.name}-{count + 1}"
    return found


def _one(path: Path, work: Path) -> Submission:
    if is_archive(path):
        target = work / f"unpacked-{len(list(work.glob('unpacked-*')))}"
        try:
            notes = unpack(path, target)
        except SubmissionError as error:
            shutil.rmtree(target, ignore_errors=True)
            return Submission(shown(_stem(path)), path, None, rejected=str(error))
        stages, checkout = _locate(target)
        submission = Submission(shown(_stem(path)), path, stages, checkout, notes)
    else:
        stages, checkout = _locate(path)
        submission = Submission(shown(path.name), path, stages, checkout)
    if submission.stages is None:
        submission.notes.append("no stage package (s1_loop/ … s5_pipeline/) found")
    return submission


def _safe_name(name: str) -> PurePosixPath | None:
    """The member's path relative to the target, or None when it would leave it."""
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or (pure.parts and ":" in pure.parts[0]):
        return None
    parts = [p for p in pure.parts if p not in ("", ".")]
    return PurePosixPath(*parts) if parts else None


def unpack(archive: Path, target: Path) -> list[str]:
    """Unpack ``archive`` into ``target`` safely; returns notes on what was refused."""
    target.mkdir(parents=True)
    notes: list[str] = []
    budget = [MAX_BYTES]
    seen: set[PurePosixPath] = set()
    try:
        members = _members(archive)
        for count, (name, kind, size, read) in enumerate(members):
            if count >= MAX_MEMBERS:
                raise SubmissionError(f"{archive.name}: more than {MAX_MEMBERS} members")
            rel = _safe_name(name)
            if rel is None:
                notes.append(f"refused {name!r}: its path leaves the archive's folder")
                continue
            if kind == "dir":
                (target / rel).mkdir(parents=True, exist_ok=True)
                continue
            if kind != "file":
                notes.append(f"refused {name!r}: a {kind}, only files and folders are unpacked")
                continue
            if rel in seen:
                raise SubmissionError(f"{archive.name}: two members named {rel.as_posix()!r}")
            seen.add(rel)
            if size > budget[0]:  # said before it is read; ``_copy`` counts what really is
                raise SubmissionError(f"{archive.name}: more than {MAX_BYTES >> 20} MB unpacked")
            out = target / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            with read() as source, open(out, "xb") as sink:
                _copy(source, sink, budget, archive.name)
    except SubmissionError:
        raise
    except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        raise SubmissionError(f"{archive.name}: cannot unpack: {error}") from None
    return notes


def _copy(source, sink, budget: list[int], name: str) -> None:  # type: ignore[no-untyped-def]
    """Copy a member, counting the bytes really unpacked (a header can lie about its size)."""
    while chunk := source.read(1 << 20):
        budget[0] -= len(chunk)
        if budget[0] < 0:
            raise SubmissionError(f"{name}: more than {MAX_BYTES >> 20} MB unpacked")
        sink.write(chunk)


def _members(archive: Path):  # type: ignore[no-untyped-def]
    """(name, kind, size, opener) for each member of a zip or tar archive."""
    if archive.name.lower().endswith(".zip"):
        with zipfile.ZipFile(archive) as zipped:
            for info in zipped.infolist():
                mode = (info.external_attr >> 16) & 0o170000
                kind = "dir" if info.is_dir() else ("symbolic link" if mode == 0o120000
                                                    else "file")
                yield info.filename, kind, info.file_size, lambda i=info: zipped.open(i)
        return
    with tarfile.open(archive) as tarred:
        for info in tarred:
            kind = ("dir" if info.isdir() else "file" if info.isfile() else
                    "link" if info.issym() or info.islnk() else "special file")
            yield info.name, kind, info.size, lambda i=info: tarred.extractfile(i)
