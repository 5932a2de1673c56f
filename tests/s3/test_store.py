"""Exercise 3.1 — the offload writer: safe names, exclusive, idempotent, crash-safe (§7.4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from s3_offload import OFFLOAD_DIR, offload

pytestmark = pytest.mark.exercise("3.1")


def test_writes_under_the_workspace(tmp_path: Path) -> None:
    path = offload(tmp_path, "toolu_abc123", "x" * 60_000)
    assert path == tmp_path / OFFLOAD_DIR / "toolu_abc123.txt"
    assert path.read_text(encoding="utf-8") == "x" * 60_000


@pytest.mark.parametrize("bad", ["../../x", "/etc/passwd", "a/b", "toolu_1.txt", "", ".."])
def test_unsafe_ids_are_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError):
        offload(tmp_path, bad, "content")
    assert not any(tmp_path.rglob("*.txt"))


def test_idempotent_per_id_first_write_wins(tmp_path: Path) -> None:
    first = offload(tmp_path, "toolu_same", "first")
    second = offload(tmp_path, "toolu_same", "second")
    assert first == second
    assert first.read_text() == "first"


def test_no_temporary_files_are_left_behind(tmp_path: Path) -> None:
    offload(tmp_path, "toolu_a", "a")
    offload(tmp_path, "toolu_a", "a")
    assert sorted(p.name for p in (tmp_path / OFFLOAD_DIR).iterdir()) == ["toolu_a.txt"]


def test_a_crash_before_linking_leaves_no_half_file(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    def crash(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("process killed")

    monkeypatch.setattr(os, "link", crash)
    with pytest.raises(KeyboardInterrupt):
        offload(tmp_path, "toolu_crash", "partial?")
    monkeypatch.undo()
    assert not (tmp_path / OFFLOAD_DIR / "toolu_crash.txt").exists()
    assert offload(tmp_path, "toolu_crash", "whole").read_text() == "whole"


def test_unicode_survives(tmp_path: Path) -> None:
    text = "日志：第 7 行出错 ✓\n" * 100
    assert offload(tmp_path, "toolu_u", text).read_text(encoding="utf-8") == text
