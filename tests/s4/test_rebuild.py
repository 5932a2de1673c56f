"""Exercise 4.3 — the files put back after a summary: read again from the workspace, newest
first, within three budgets, flagged when they changed (§10.2, §10.3)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from s4_summarize import ATTACHMENT_HEADER, FileLog, reattach_files
from s4help import make_history

from ctxlab.tokens import count_text

pytestmark = pytest.mark.exercise("4.3")


def _workspace(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def _blocks(attachment: str) -> list[str]:
    return attachment.split("\n\n<file ")[1:]


def _paths(attachment: str) -> list[str]:
    return [block.split('"')[1] for block in _blocks(attachment)]


@pytest.mark.checklist("B.22", "B.23")
def test_the_five_most_recent_files_come_back_newest_first(tmp_path: Path) -> None:
    names = [f"src/m{i}.py" for i in range(7)]
    _workspace(tmp_path, {name: f"# module {name}\nVALUE = 1\n" for name in names})
    older = make_history(8, paths=[*names, "src/m1.py"])  # m1 read again last
    attachment = reattach_files(older, tmp_path, {})
    assert attachment.startswith(ATTACHMENT_HEADER)
    assert _paths(attachment) == ["src/m1.py", "src/m6.py", "src/m5.py", "src/m4.py",
                                  "src/m3.py"]
    assert "# module src/m6.py\nVALUE = 1\n" in attachment


@pytest.mark.checklist("B.23")
def test_a_big_file_is_clipped_to_its_budget(tmp_path: Path) -> None:
    big = "\n".join(f"line {i}: the quick brown fox jumps over the lazy dog" for i in range(4000))
    _workspace(tmp_path, {"big.log": big, "small.py": "x = 1\n"})
    attachment = reattach_files(make_history(2, paths=["big.log", "small.py"]), tmp_path, {})
    blocks = _blocks(attachment)
    assert len(blocks) == 2 and all(count_text("<file " + b) <= 5_000 for b in blocks)
    assert "line 0:" in attachment and "line 3999:" not in attachment
    assert "x = 1" in attachment


@pytest.mark.checklist("B.23")
def test_the_total_budget_skips_what_does_not_fit(tmp_path: Path) -> None:
    files = {"a.txt": "alpha " * 3_000, "b.txt": "bravo " * 200, "c.txt": "charlie " * 200}
    _workspace(tmp_path, files)
    older = make_history(3, paths=["c.txt", "b.txt", "a.txt"])  # a is the newest
    attachment = reattach_files(older, tmp_path, {}, total=2_000)
    assert _paths(attachment) == ["b.txt", "c.txt"]
    assert count_text(attachment) <= 2_000 + count_text(ATTACHMENT_HEADER) + 10


@pytest.mark.checklist("B.24")
def test_a_file_changed_since_it_was_seen_is_flagged(tmp_path: Path) -> None:
    _workspace(tmp_path, {"config.py": "TIMEOUT = 5\n", "job.py": "run()\n"})
    older = make_history(2, paths=["config.py", "job.py"])
    log = FileLog()
    log.record(older, tmp_path)
    seen = os.stat(tmp_path / "config.py").st_mtime_ns
    (tmp_path / "config.py").write_text("TIMEOUT = 30\n", encoding="utf-8")
    os.utime(tmp_path / "config.py", ns=(seen + 5_000_000_000, seen + 5_000_000_000))
    attachment = reattach_files(older, tmp_path, log.mtimes)
    config, job = _blocks(attachment)[1], _blocks(attachment)[0]
    assert "changed on disk" in config and "TIMEOUT = 30" in config
    assert "changed on disk" not in job


def test_what_cannot_be_read_is_skipped(tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("secret", encoding="utf-8")
    root = tmp_path / "ws"
    _workspace(root, {"ok.py": "fine = True\n", "pkg/__init__.py": ""})
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00\x01")
    paths = ["ok.py", f"../{outside.name}", "missing.py", "blob.bin", "pkg", "/etc/hostname"]
    attachment = reattach_files(make_history(len(paths), paths=paths), root, {})
    assert _paths(attachment) == ["ok.py"]
    assert "secret" not in attachment


def test_no_files_touched_means_no_attachment(tmp_path: Path) -> None:
    assert reattach_files(make_history(3), tmp_path, {}) == ""
