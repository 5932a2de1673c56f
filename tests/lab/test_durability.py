"""Disposable workspaces (issue 49): the same atomic, link-refusing writes, without the fsync.

A folder its owner deletes afterwards (a replay's workspace) is declared ``disposable``; every
crash-safe writer of the bench then skips the fsync there, and only there.
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from pathlib import Path

import pytest

from ctxlab.loss import write_offloaded
from ctxlab.replay import replay_file
from ctxlab.replay import run as replay_run
from ctxlab.telemetry import JsonlWriter, append_jsonl, read_jsonl
from ctxlab.tools import safe_path
from ctxlab.tools.durability import disposable, must_sync

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every descriptor ``os.fsync`` is called with (the call still happens)."""
    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    return calls


def write_everything(root: Path) -> None:
    """One write of each crash-safe kind under ``root``: an offloaded copy and its checksum
    (``create_once``, ``append_jsonl``), a decision log, a telemetry log, a settings file."""
    write_offloaded(root, Path("out") / "a.txt", "offloaded 内容")  # create_once + append_jsonl
    append_jsonl(root / "log" / "decisions.jsonl", [{"n": 1}], ensure_ascii=True)
    with JsonlWriter(root / "log" / "run.jsonl", root=root) as writer:
        writer.write({"n": 2})
    safe_path.write_bytes(root / "run.json", b"{}", root=root, durable=True)


def contents(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_disposable_folder_gets_the_same_files_without_a_single_fsync(
        tmp_path: Path, fsyncs: list[int]) -> None:
    kept, thrown = tmp_path / "kept", tmp_path / "thrown"
    write_everything(kept)
    assert len(fsyncs) >= 5  # file + folder of the offload, the checksums, both logs, run.json
    fsyncs.clear()
    with disposable(thrown):
        write_everything(thrown)
    assert fsyncs == []
    assert contents(thrown) == contents(kept)  # no temporary file left behind either
    write_everything(thrown)  # the block is over: durable again (the offload is there already)
    assert len(fsyncs) >= 3


def test_only_writes_under_the_disposable_folder_skip_the_fsync(
        tmp_path: Path, fsyncs: list[int]) -> None:
    root = tmp_path / "ws"
    with disposable(root):
        assert not must_sync(root / "a" / "b.jsonl")
        assert must_sync(tmp_path / "ws2" / "b.jsonl")  # a sibling sharing the prefix
        assert must_sync(root / ".." / "outside.jsonl")  # leaves it
        append_jsonl(tmp_path / "user" / "decisions.jsonl", [{"n": 1}])
        assert len(fsyncs) == 1
        with disposable(root):  # blocks nest
            pass
        assert not must_sync(root / "c.jsonl")
    assert must_sync(root / "c.jsonl")


def test_a_disposable_folder_still_refuses_links_and_keeps_the_first_write(
        tmp_path: Path) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "out").symlink_to(outside)
    (root / "log.jsonl").symlink_to(outside / "log.jsonl")
    with disposable(root):
        with pytest.raises(safe_path.UnsafePathError):
            write_offloaded(root, Path("out") / "a.txt", "leak")
        with pytest.raises(safe_path.UnsafePathError):
            append_jsonl(root / "log.jsonl", [{"n": 1}], root=root)
        assert safe_path.create_once(root / "first.txt", b"first", root=root)
        assert not safe_path.create_once(root / "first.txt", b"second", root=root)
    assert list(outside.iterdir()) == []
    assert (root / "first.txt").read_bytes() == b"first"
    assert sorted(p.name for p in root.iterdir()) == ["first.txt", "log.jsonl", "out"]


def test_a_replay_writes_its_workspace_without_fsync_and_reports_the_same(
        fsyncs: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """A stage-5 replay on a small window offloads and logs decisions in its temporary
    workspace: none of it is fsync'd, and the report is the one a durable workspace gives."""
    def replayed() -> dict[str, object]:
        report = replay_file(FIXTURES / "compacted.jsonl", 5, window=2_000)
        return report.to_dict()

    disposed = replayed()
    assert fsyncs == [] and disposed["disk"]  # it did write
    monkeypatch.setattr(replay_run, "disposable", nullcontext)  # yields the folder, durable
    assert replayed() == disposed
    assert fsyncs  # the same replay, its workspace durable: the writes are fsync'd


def test_a_torn_line_in_a_disposable_log_is_still_skipped(tmp_path: Path) -> None:
    with disposable(tmp_path):
        with JsonlWriter(tmp_path / "run.jsonl") as writer:
            writer.write({"n": 1})
        with (tmp_path / "run.jsonl").open("ab") as stream:
            stream.write(b'{"n": 2, "half')
        with JsonlWriter(tmp_path / "run.jsonl") as writer:
            writer.write({"n": 3})
    assert read_jsonl(tmp_path / "run.jsonl").records == [{"n": 1}, {"n": 3}]
