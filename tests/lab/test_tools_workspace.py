"""Workspace: a fresh, disposable copy of a fixture directory (ctxlab.tools)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxlab.tools import Workspace


@pytest.fixture
def source(tmp_path: Path) -> Path:
    src = tmp_path / "fixture"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "mod.py").write_text("VALUE = 1\n")
    (src / "README.md").write_text("readme\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (src / "leak").symlink_to(outside)
    return src


def test_copies_the_tree_into_a_fresh_directory(source: Path) -> None:
    with Workspace(source) as ws:
        assert ws.root != source.resolve()
        assert ws.root.is_absolute() and ws.root == ws.root.resolve()
        assert (ws.root / "pkg" / "mod.py").read_text() == "VALUE = 1\n"
        assert (ws.root / "README.md").read_text() == "readme\n"


def test_changes_in_the_copy_leave_the_source_alone(source: Path) -> None:
    with Workspace(source) as ws:
        (ws.root / "README.md").write_text("changed\n")
        (ws.root / "pkg" / "mod.py").unlink()
    assert (source / "README.md").read_text() == "readme\n"
    assert (source / "pkg" / "mod.py").exists()


def test_two_workspaces_do_not_share_files(source: Path) -> None:
    with Workspace(source) as first, Workspace(source) as second:
        (first.root / "new.txt").write_text("x")
        assert not (second.root / "new.txt").exists()


def test_symlinks_are_copied_as_symlinks(source: Path) -> None:
    with Workspace(source) as ws:
        link = ws.root / "leak"
        assert link.is_symlink()
        assert os.readlink(link) == os.readlink(source / "leak")


def test_context_exit_and_cleanup_delete_the_copy(source: Path) -> None:
    with Workspace(source) as ws:
        root = ws.root
        assert root.is_dir()
    assert not root.exists()
    ws.cleanup()  # a second cleanup is harmless
    assert source.is_dir()


def test_copies_into_a_given_target(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "run-1"
    ws = Workspace(source, target)
    assert ws.root == target.resolve()
    assert (target / "README.md").read_text() == "readme\n"
    ws.cleanup()
    assert not target.exists()


def test_refuses_a_non_empty_target(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "busy"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        Workspace(source, target)
    assert (target / "keep.txt").read_text() == "mine"


def test_refuses_a_missing_source(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        Workspace(tmp_path / "nope")
