"""A folder reached once and held (issue 49, disk writes): the same refusals as ``safe_path``.

``ctxlab.tools.folder.Folder`` walks to its folder once and opens files by name in it;
``ctxlab.telemetry.LogFolder`` appends JSON Lines that way (the stage-5 ledger's logs). These
tests plant each kind of link, before and after the folder was reached, tear a last line,
remove the folder under a running writer, and count the process's open descriptors.
"""

from __future__ import annotations

import gc
import os
import shutil
from pathlib import Path

import pytest

from ctxlab.telemetry import LogFolder, read_jsonl, read_records
from ctxlab.tools.durability import disposable
from ctxlab.tools.folder import Folder, FolderGoneError
from ctxlab.tools.safe_path import UnsafePathError


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "target.txt").write_text("outside\n")
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_symlink_on_the_way_is_refused_when_the_folder_is_reached(
        root: Path, outside: Path) -> None:
    (root / "logs").symlink_to(outside)
    before = snapshot(outside)
    logs = LogFolder(root / "logs" / "session", root=root)
    with pytest.raises(UnsafePathError, match="symlink"):
        logs.append("decisions.jsonl", [{"n": 1}])
    assert snapshot(outside) == before


@pytest.mark.parametrize("kind", ["symlink", "hard link"])
def test_a_linked_file_in_the_held_folder_is_refused(root: Path, outside: Path,
                                                     kind: str) -> None:
    with LogFolder(root / "session", root=root) as logs:
        logs.append("decisions.jsonl", [{"n": 1}])  # the folder is held from here on
        planted = root / "session" / "notes.jsonl"
        if kind == "symlink":
            planted.symlink_to(outside / "target.txt")
        else:
            os.link(outside / "target.txt", planted)
        with pytest.raises(UnsafePathError, match="symlink" if kind == "symlink" else "2 hard"):
            logs.append("notes.jsonl", [{"n": 2}])
    assert (outside / "target.txt").read_text() == "outside\n"


def test_a_link_planted_after_the_folder_was_reached_is_not_on_the_way(
        root: Path, outside: Path) -> None:
    """The folder is moved away and a symlink to the outside takes its name: the writes stay
    in the folder that was checked, never go through the link."""
    with LogFolder(root / "session", root=root) as logs:
        logs.append("decisions.jsonl", [{"n": 1}])
        (root / "session").rename(root / "moved")
        (root / "session").symlink_to(outside)
        logs.append("decisions.jsonl", [{"n": 2}])
    assert not (outside / "decisions.jsonl").exists()
    assert read_records(root / "moved" / "decisions.jsonl") == [{"n": 1}, {"n": 2}]


def test_a_folder_removed_under_a_running_writer_is_a_clear_error(root: Path) -> None:
    logs = LogFolder(root / "session", root=root)
    logs.append("decisions.jsonl", [{"n": 1}])
    shutil.rmtree(root / "session")
    for name in ("decisions.jsonl", "notes.jsonl"):  # an existing log and a new one
        with pytest.raises(FolderGoneError, match="its folder was removed"):
            logs.append(name, [{"n": 2}])
    assert not (root / "session").exists()  # nothing written, nothing recreated elsewhere
    logs.close()
    with Folder(root / "out", root=root) as folder:
        shutil.rmtree(root / "out")
        with pytest.raises(FolderGoneError):
            folder.create_once("a.txt", b"x")


def test_a_torn_last_line_is_kept_and_the_next_lines_start_fresh(root: Path) -> None:
    log = root / "session" / "decisions.jsonl"
    log.parent.mkdir()
    log.write_bytes(b'{"n": 1}\n{"n": 2, "cut')  # a crash mid-line
    with LogFolder(log.parent, root=root, ensure_ascii=True) as logs:
        logs.append(log.name, [{"n": 3, "text": "中文"}, {"n": 4}])
    data = log.read_bytes()
    assert data.startswith(b'{"n": 1}\n{"n": 2, "cut\n')  # earlier bytes never rewritten
    assert data.isascii()
    assert [r["n"] for r in read_records(log)] == [1, 3, 4]
    with pytest.raises(ValueError, match="line 2"):  # the strict reader sees the torn line
        read_jsonl(log)


def test_names_are_plain_file_names(root: Path) -> None:
    with Folder(root / "session", root=root) as folder:
        for name in ("", ".", "..", "../escape.txt", "a/b"):
            with pytest.raises(UnsafePathError, match="not a file name"):
                folder.open(name, os.O_WRONLY | os.O_CREAT)
    assert sorted(p.name for p in root.iterdir()) == ["session"]


def test_each_append_is_synced_unless_the_folder_is_disposable(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    with LogFolder(root / "session", root=root) as logs:
        logs.append("a.jsonl", [{"n": 1}])
        logs.append("a.jsonl", [{"n": 2}, {"n": 3}])
        assert len(synced) == 2
        with disposable(root):
            logs.append("a.jsonl", [{"n": 4}])
        assert len(synced) == 2
        logs.append("a.jsonl", [{"n": 5}])  # the block is over: durable again
        assert len(synced) == 3


def test_the_descriptor_is_closed_by_close_and_by_dropping_the_writer(root: Path) -> None:
    before = open_fds()
    folder = Folder(root / "a", root=root)
    assert open_fds() == before + 1
    folder.close()
    folder.close()  # twice is fine
    assert open_fds() == before
    with pytest.raises(ValueError, match="closed"):
        folder.open("x.txt", os.O_WRONLY | os.O_CREAT)
    gc.disable()  # dropping it must be enough, without a collection
    try:
        for n in range(50):
            LogFolder(root / "b", root=root).append("x.jsonl", [{"n": n}])
        assert open_fds() == before
    finally:
        gc.enable()
    assert len(read_records(root / "b" / "x.jsonl")) == 50


def test_many_stage_5_layers_leave_no_descriptor_open(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay builds a stage-5 layer, whose ledger holds its log folder; replaying many
    sessions must not grow the process's open descriptors."""
    from ctxlab.replay import replay_file
    from ctxlab.replay.synthetic import synthetic_log

    appended: list[str] = []
    real = LogFolder.append
    monkeypatch.setattr(LogFolder, "append",
                        lambda self, name, records: (appended.append(name),
                                                     real(self, name, records))[1])
    log = synthetic_log(tmp_path / "s.jsonl", 40, seed=0)
    replay_file(log, 5)  # imports and caches settle first
    before = open_fds()
    for _ in range(4):
        replay_file(log, 5)
    assert appended  # the ledger did write through its held folder
    assert open_fds() == before


@pytest.mark.parametrize("change", ["none", "renamed", "removed", "symlinked", "closed"])
def test_at_its_path_says_whether_the_path_still_leads_to_the_held_folder(
        root: Path, outside: Path, change: str) -> None:
    folder = Folder(root / "a" / "b", root=root)
    if change == "renamed":
        (root / "a").rename(root / "moved")
        (root / "a" / "b").mkdir(parents=True)  # a new folder under the old name
    elif change == "removed":
        shutil.rmtree(root / "a")
    elif change == "symlinked":  # the folder moved away, a link to it takes its name
        (root / "a").rename(root / "moved")
        (root / "a").symlink_to(root / "moved")
    elif change == "closed":
        folder.close()
    assert folder.at_its_path() == (change == "none")
    folder.close()


def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files ``safe_path.open_in`` opened, by name."""
    from ctxlab.tools import safe_path

    names: list[str] = []
    real = safe_path.open_in
    monkeypatch.setattr(safe_path, "open_in", lambda fd, name, *a, **kw: (
        names.append(name), real(fd, name, *a, **kw))[1])
    return names


def test_a_log_is_opened_once_for_many_appends(root: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    names = opened(monkeypatch)
    with LogFolder(root / "session", root=root) as logs:
        for n in range(5):
            logs.append("decisions.jsonl", [{"n": n}])
            logs.append("notes.jsonl", [{"n": n}])
    assert sorted(names) == ["decisions.jsonl", "notes.jsonl"]
    assert [r["n"] for r in read_records(root / "session" / "decisions.jsonl")] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("change", ["symlink", "hard link", "removed", "replaced"])
def test_a_held_log_whose_name_changed_is_opened_again_with_the_checks(
        root: Path, outside: Path, change: str) -> None:
    """After an append, the log's name is turned into a link to the outside, given a second
    hard link, removed, or replaced by another file: the next append never goes to a file
    its name no longer designates, and never through a link."""
    log = root / "session" / "decisions.jsonl"
    with LogFolder(log.parent, root=root) as logs:
        logs.append(log.name, [{"n": 1}])
        if change == "symlink":
            log.unlink()
            log.symlink_to(outside / "target.txt")
        elif change == "hard link":
            os.link(log, outside / "second.jsonl")
        elif change == "removed":
            log.unlink()
        else:
            (log.parent / "other.jsonl").write_text('{"n": 0}\n')
            (log.parent / "other.jsonl").replace(log)
        if change in ("symlink", "hard link"):
            with pytest.raises(UnsafePathError, match="refusing"):
                logs.append(log.name, [{"n": 2}])
        else:
            logs.append(log.name, [{"n": 2}])
    assert (outside / "target.txt").read_text() == "outside\n"
    if change == "hard link":
        assert (outside / "second.jsonl").read_bytes() == b'{"n": 1}\n'  # nothing appended
    elif change == "removed":
        assert read_records(log) == [{"n": 2}]
    elif change == "replaced":
        assert read_records(log) == [{"n": 0}, {"n": 2}]


def test_held_logs_are_closed_with_their_folder(root: Path) -> None:
    before = open_fds()
    logs = LogFolder(root / "session", root=root)
    for name in ("a.jsonl", "b.jsonl", "c.jsonl"):
        logs.append(name, [{"n": 1}])
    assert open_fds() == before + 4  # the folder and its three logs
    logs.close()
    assert open_fds() == before
    logs.append("a.jsonl", [{"n": 2}])  # reached again after close
    del logs
    assert open_fds() == before


def test_a_held_log_reads_its_last_byte_only_when_another_writer_was_there(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log that ends with this writer's own last line is appended to without the torn-line
    check; a line torn by another writer (a crashed process) is still seen, and the next
    lines start on a fresh line."""
    reads: list[int] = []
    real = os.pread
    monkeypatch.setattr(os, "pread", lambda fd, n, at: (reads.append(at), real(fd, n, at))[1])
    log = root / "session" / "decisions.jsonl"
    with LogFolder(log.parent, root=root) as logs:
        logs.append(log.name, [{"n": 1}])  # a new, empty file: nothing to read
        logs.append(log.name, [{"n": 2}])
        logs.append(log.name, [{"n": 3}])
        assert reads == []
        with log.open("ab") as other:
            other.write(b'{"n": 4, "cut')  # another writer, torn
        logs.append(log.name, [{"n": 5}])
        assert len(reads) == 1
        logs.append(log.name, [{"n": 6}])
        assert len(reads) == 1
    assert log.read_bytes().endswith(b'{"n": 4, "cut\n{"n": 5}\n{"n": 6}\n')
    assert [r["n"] for r in read_records(log)] == [1, 2, 3, 5, 6]
