"""read_file / write_file / edit_file and the path guard (ctxlab.tools, DESIGN §2)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxlab.tools import ToolBox, Workspace
from ctxlab.tools.files import MAX_READ_BYTES


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("TOP-SECRET\n")
    return folder


@pytest.fixture
def box(tmp_path: Path, outside: Path) -> Iterator[ToolBox]:
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "a.txt").write_text("alpha\nbeta\n")
    (src / "pkg" / "mod.py").write_text("x = 1\ny = 1\n")
    (src / "leak.txt").symlink_to(outside / "secret.txt")
    (src / "linkdir").symlink_to(outside)
    (src / "dangling").symlink_to(outside / "created-by-write.txt")
    (src / "alias.txt").symlink_to("a.txt")  # stays inside: allowed
    with Workspace(src) as ws:
        yield ToolBox(ws)


ESCAPES = [
    "../outside/secret.txt",
    "pkg/../../outside/secret.txt",
    "..",
    "/etc/passwd",
    "leak.txt",
    "linkdir/secret.txt",
    "dangling",
]


@pytest.mark.parametrize("path", ESCAPES)
def test_read_file_refuses_escapes(box: ToolBox, path: str) -> None:
    out = box.run("read_file", {"path": path})
    assert out.is_error
    assert out.content.startswith("Error: the path ")
    assert "TOP-SECRET" not in out.content


@pytest.mark.parametrize("path", ESCAPES)
def test_write_file_refuses_escapes(box: ToolBox, outside: Path, path: str) -> None:
    before = sorted(p.name for p in outside.iterdir())
    out = box.run("write_file", {"path": path, "content": "pwned"})
    assert out.is_error
    assert sorted(p.name for p in outside.iterdir()) == before
    assert (outside / "secret.txt").read_text() == "TOP-SECRET\n"


def test_write_through_symlinked_directory_creates_nothing(box: ToolBox, outside: Path) -> None:
    out = box.run("write_file", {"path": "linkdir/new/file.txt", "content": "x"})
    assert out.is_error
    assert not (outside / "new").exists()


@pytest.mark.parametrize("path", ["leak.txt", "linkdir/secret.txt", "../outside/secret.txt"])
def test_edit_file_refuses_escapes(box: ToolBox, outside: Path, path: str) -> None:
    out = box.run("edit_file", {"path": path, "old": "TOP", "new": "BOTTOM"})
    assert out.is_error
    assert (outside / "secret.txt").read_text() == "TOP-SECRET\n"


def test_paths_that_stay_inside_are_allowed(box: ToolBox) -> None:
    assert box.run("read_file", {"path": "pkg/../a.txt"}).content == "alpha\nbeta\n"
    assert box.run("read_file", {"path": "alias.txt"}).content == "alpha\nbeta\n"
    assert box.run("read_file", {"path": "./pkg/mod.py"}).content == "x = 1\ny = 1\n"


def test_write_then_read_round_trip(box: ToolBox) -> None:
    text = "第一行\nsecond line\n"
    out = box.run("write_file", {"path": "deep/er/notes.md", "content": text})
    assert not out.is_error
    assert str(len(text.encode("utf-8"))) in out.content
    assert (box.root / "deep" / "er" / "notes.md").read_text(encoding="utf-8") == text
    assert box.run("read_file", {"path": "deep/er/notes.md"}).content == text
    box.run("write_file", {"path": "deep/er/notes.md", "content": "v2"})
    assert box.run("read_file", {"path": "deep/er/notes.md"}).content == "v2"


def test_read_missing_file_and_directory(box: ToolBox) -> None:
    missing = box.run("read_file", {"path": "nope.txt"})
    assert missing.is_error and "not found" in missing.content
    folder = box.run("read_file", {"path": "pkg"})
    assert folder.is_error and "directory" in folder.content
    assert box.run("write_file", {"path": "pkg", "content": "x"}).is_error


def test_read_binary_file_is_described(box: ToolBox) -> None:
    (box.root / "blob.bin").write_bytes(bytes(range(256)))
    out = box.run("read_file", {"path": "blob.bin"})
    assert not out.is_error
    assert out.content == "[binary file: blob.bin, 256 bytes; not shown]"


def test_read_non_utf8_file_is_decoded_with_replacement(box: ToolBox) -> None:
    (box.root / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    out = box.run("read_file", {"path": "latin1.txt"})
    assert not out.is_error
    assert out.content == "caf\ufffd\n"


def test_read_refuses_files_over_the_limit(box: ToolBox) -> None:
    huge = box.root / "huge.log"
    with huge.open("wb") as f:
        f.truncate(MAX_READ_BYTES + 1)  # sparse: no real 20 MB written
    out = box.run("read_file", {"path": "huge.log"})
    assert out.is_error and str(MAX_READ_BYTES) in out.content
    assert len(out.content) < 500


def test_read_returns_long_files_whole(box: ToolBox) -> None:
    text = "line\n" * 50_000
    (box.root / "long.txt").write_text(text)
    assert box.run("read_file", {"path": "long.txt"}).content == text


def test_edit_replaces_the_single_occurrence(box: ToolBox) -> None:
    out = box.run("edit_file", {"path": "a.txt", "old": "beta", "new": "gamma"})
    assert not out.is_error
    assert (box.root / "a.txt").read_text() == "alpha\ngamma\n"


def test_edit_reports_missing_text(box: ToolBox) -> None:
    out = box.run("edit_file", {"path": "a.txt", "old": "delta", "new": "x"})
    assert out.is_error and "not found" in out.content
    assert (box.root / "a.txt").read_text() == "alpha\nbeta\n"


def test_edit_reports_ambiguous_text_and_changes_nothing(box: ToolBox) -> None:
    out = box.run("edit_file", {"path": "pkg/mod.py", "old": " = 1", "new": " = 2"})
    assert out.is_error and "2 times" in out.content
    assert (box.root / "pkg" / "mod.py").read_text() == "x = 1\ny = 1\n"


def test_edit_refuses_empty_old_missing_file_and_binary(box: ToolBox) -> None:
    assert box.run("edit_file", {"path": "a.txt", "old": "", "new": "x"}).is_error
    assert box.run("edit_file", {"path": "nope.txt", "old": "a", "new": "b"}).is_error
    (box.root / "bad.txt").write_bytes(b"caf\xe9")
    out = box.run("edit_file", {"path": "bad.txt", "old": "caf", "new": "tea"})
    assert out.is_error and "UTF-8" in out.content
    assert (box.root / "bad.txt").read_bytes() == b"caf\xe9"


def test_symlink_loop_is_refused_not_raised(box: ToolBox) -> None:
    os.symlink("loop2", box.root / "loop1")
    os.symlink("loop1", box.root / "loop2")
    out = box.run("read_file", {"path": "loop1"})
    assert out.is_error and "cannot resolve" in out.content
