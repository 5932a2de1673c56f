"""The one safe-write path (issue 18): no write under the workspace follows a link.

``ctxlab.tools.safe_path`` opens each folder relative to its parent with ``O_NOFOLLOW``; every
writer of the workbook goes through it (the tools, the journal, the JSONL logs, the offload
store). These tests plant the link at each place on the path and check both the refusal and
that nothing outside changed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxlab.telemetry import JsonlWriter, SessionLog, append_jsonl, read_records
from ctxlab.tools import ToolBox
from ctxlab.tools.safe_path import UnsafePathError, create_once, read_bytes, write_bytes


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "target.txt").write_text("outside\n")
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    (folder / "a" / "b").mkdir(parents=True)
    return folder


@pytest.mark.parametrize("where", ["a", "a/b", "a/b/c"])
@pytest.mark.parametrize("writer", ["write_bytes", "create_once", "append_jsonl", "JsonlWriter"])
def test_a_symlink_anywhere_on_the_path_is_refused(root: Path, outside: Path, where: str,
                                                   writer: str) -> None:
    link = root / where
    if link.exists():
        os.rename(link, root / f"{where.replace('/', '-')}-moved")
    link.symlink_to(outside if where != "a/b/c" else outside / "target.txt")
    path = root / "a" / "b" / "c"
    before = sorted(p.name for p in outside.iterdir()), (outside / "target.txt").read_text()
    with pytest.raises(UnsafePathError, match="symlink"):
        if writer == "write_bytes":
            write_bytes(path, b"x", root=root)
        elif writer == "create_once":
            create_once(path, b"x", root=root)
        elif writer == "append_jsonl":
            append_jsonl(path, [{"x": 1}], root=root)
        else:
            JsonlWriter(path, root=root).close()
    assert (sorted(p.name for p in outside.iterdir()),
            (outside / "target.txt").read_text()) == before


def test_a_hard_linked_final_file_is_refused(root: Path, outside: Path) -> None:
    os.link(outside / "target.txt", root / "a" / "shared.txt")
    for write in (lambda p: write_bytes(p, b"x", root=root),
                  lambda p: append_jsonl(p, [{"x": 1}], root=root),
                  lambda p: create_once(p, b"x", root=root)):
        with pytest.raises(UnsafePathError, match="2 hard links"):
            write(root / "a" / "shared.txt")
    assert (outside / "target.txt").read_text() == "outside\n"


def test_a_named_pipe_is_refused_without_hanging(root: Path) -> None:
    os.mkfifo(root / "a" / "pipe")
    with pytest.raises(UnsafePathError, match="not a regular file"):
        write_bytes(root / "a" / "pipe", b"x", root=root)


def test_without_a_root_no_component_may_be_a_link(tmp_path: Path, outside: Path) -> None:
    (tmp_path / "alias").symlink_to(outside)
    with pytest.raises(UnsafePathError):
        append_jsonl(tmp_path / "alias" / "log.jsonl", [{"x": 1}])
    assert not (outside / "log.jsonl").exists()


def test_the_model_reads_the_refusal(root: Path, outside: Path) -> None:
    (root / "out").symlink_to(outside)
    os.link(outside / "target.txt", root / "hard.txt")
    box = ToolBox(root)
    through = box.run("write_file", {"path": "out/new.txt", "content": "x"})
    assert through.is_error and "outside the workspace" in through.content
    hard = box.run("edit_file", {"path": "hard.txt", "old": "outside", "new": "pwned"})
    assert hard.is_error and "hard link" in hard.content
    assert (outside / "target.txt").read_text() == "outside\n"


def test_plain_writes_still_work(root: Path) -> None:
    write_bytes(root / "a" / "new" / "f.txt", b"one", root=root)
    write_bytes(root / "a" / "new" / "f.txt", b"two", root=root)
    assert read_bytes(root / "a" / "new" / "f.txt", root=root) == b"two"
    assert create_once(root / "a" / "once.txt", b"1", root=root)
    assert not create_once(root / "a" / "once.txt", b"2", root=root)
    assert (root / "a" / "once.txt").read_bytes() == b"1"
    append_jsonl(root / "logs" / "x.jsonl", [{"n": 1}], root=root)
    assert read_records(root / "logs" / "x.jsonl", root=root) == [{"n": 1}]


def test_a_user_chosen_log_path_may_go_through_a_folder_link(tmp_path: Path) -> None:
    """``ctxlab run --log`` is the user's choice: its folder is trusted as the user named it,
    only the file itself must not be a link."""
    (tmp_path / "real").mkdir()
    (tmp_path / "logs").symlink_to(tmp_path / "real")
    with SessionLog(tmp_path / "logs" / "run.jsonl"):
        pass
    assert (tmp_path / "real" / "run.jsonl").exists()
    (tmp_path / "real" / "sneaky.jsonl").symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(UnsafePathError):
        SessionLog(tmp_path / "logs" / "sneaky.jsonl")
