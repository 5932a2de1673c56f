"""Offloads in one batch (issue 49, the band's disk time): k + 2 fsyncs for k files, not 3k.

``ctxlab.loss.offload_batch`` holds the offload folder for a block: each temporary file is
fsync'd before its link, the folder once at the end, then the checksums in one append. These
tests count and order the fsyncs, compare the bytes with unbatched writes, plant links, write
an id twice, and stop a batch halfway with an error.
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import stat
from collections import Counter
from pathlib import Path

import pytest

from ctxlab.loss import (
    CHECKSUMS,
    OFFLOAD_DIR,
    ON_DISK,
    OffloadFolders,
    manifest,
    offload_batch,
    verify,
    write_offloaded,
)
from ctxlab.telemetry import read_jsonl
from ctxlab.tools.durability import disposable
from ctxlab.tools.safe_path import UnsafePathError

TEXTS = {f"toolu_{n:02d}": f"result {n}: " + "行 output line\n" * (40 + n) for n in range(7)}


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What each ``os.fsync`` was called on, in order: ``folder``, or the file's name (the
    call still happens)."""
    calls: list[str] = []
    real = os.fsync

    def spy(fd: int) -> None:
        kind = "folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else \
            os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        calls.append(kind)
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    return calls


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def relative(ident: str) -> Path:
    return OFFLOAD_DIR / f"{ident}.txt"


def files(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_batch_of_k_files_costs_k_plus_2_fsyncs_in_the_safe_order(
        root: Path, fsyncs: list[str]) -> None:
    with offload_batch(root):
        for ident, text in TEXTS.items():
            write_offloaded(root, relative(ident), text)
        assert not (root / CHECKSUMS).exists()  # the checksums wait for the links
    k = len(TEXTS)
    assert len(fsyncs) == k + 2
    assert all(name.endswith(".part") for name in fsyncs[:k])  # each before its link
    assert fsyncs[k:] == ["folder", CHECKSUMS.name]  # links on disk, then the checksums
    assert verify(root) == []
    assert len(read_jsonl(root / CHECKSUMS).records) == k


def test_alone_each_file_costs_3_fsyncs_as_before(root: Path, fsyncs: list[str]) -> None:
    write_offloaded(root, relative("toolu_00"), TEXTS["toolu_00"])
    assert fsyncs[1:] == ["folder", CHECKSUMS.name] and fsyncs[0].endswith(".part")


def test_a_batch_writes_the_same_bytes_as_unbatched_writes(tmp_path: Path) -> None:
    alone, batched = tmp_path / "alone", tmp_path / "batched"
    for ident, text in TEXTS.items():
        write_offloaded(alone, relative(ident), text)
    with offload_batch(batched):
        for ident, text in TEXTS.items():
            assert write_offloaded(batched, relative(ident), text) == batched / relative(ident)
    assert files(batched) == files(alone)
    assert len(files(alone)) == len(TEXTS) + 1  # the files and the checksum log, no leftovers


def test_a_write_under_another_root_does_not_join_the_batch(
        tmp_path: Path, fsyncs: list[str]) -> None:
    with offload_batch(tmp_path / "a"):
        write_offloaded(tmp_path / "b", relative("toolu_00"), "x")
        assert (tmp_path / "b" / CHECKSUMS).exists() and len(fsyncs) == 3
    assert len(fsyncs) == 3  # the empty batch of "a" syncs nothing


def test_a_disposable_folder_gets_the_batch_without_a_single_fsync(
        root: Path, fsyncs: list[str]) -> None:
    with disposable(root), offload_batch(root):
        for ident, text in TEXTS.items():
            write_offloaded(root, relative(ident), text)
    assert fsyncs == []
    assert verify(root) == [] and len(read_jsonl(root / CHECKSUMS).records) == len(TEXTS)


def test_the_first_write_of_an_id_wins_inside_a_batch(root: Path) -> None:
    with offload_batch(root):
        write_offloaded(root, relative("toolu_00"), "first")
        write_offloaded(root, relative("toolu_00"), "second")
    assert (root / relative("toolu_00")).read_text() == "first"
    assert [r["path"] for r in read_jsonl(root / CHECKSUMS).records] == [
        relative("toolu_00").as_posix()]  # one record: the second call stored nothing
    assert verify(root) == []


@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_a_link_planted_in_the_folder_is_refused_and_the_rest_stays_consistent(
        root: Path, tmp_path: Path, link: str) -> None:
    target = tmp_path / "outside.txt"
    target.write_text("outside\n")
    (root / OFFLOAD_DIR).mkdir(parents=True)
    planted = root / relative("toolu_03")
    planted.symlink_to(target) if link == "symlink" else os.link(target, planted)
    with pytest.raises(UnsafePathError, match="refusing"), offload_batch(root):
        for ident, text in TEXTS.items():
            write_offloaded(root, relative(ident), text)
    assert target.read_text() == "outside\n"
    recorded = [r["path"] for r in read_jsonl(root / CHECKSUMS).records]
    assert recorded == [relative(i).as_posix() for i in ("toolu_00", "toolu_01", "toolu_02")]
    assert verify(root) == []


def test_a_symlinked_offload_folder_is_refused(root: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (root / OFFLOAD_DIR.parent).mkdir()
    (root / OFFLOAD_DIR).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnsafePathError), offload_batch(root):
        write_offloaded(root, relative("toolu_00"), "x")
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_an_error_halfway_leaves_each_written_file_complete_and_recorded(root: Path) -> None:
    idents = list(TEXTS)
    with pytest.raises(RuntimeError, match="halfway"), offload_batch(root):
        for ident in idents[:3]:
            write_offloaded(root, relative(ident), TEXTS[ident])
        raise RuntimeError("halfway")
    assert verify(root) == []
    assert len(read_jsonl(root / CHECKSUMS).records) == 3
    call = [{"type": "tool_use", "id": i, "name": "run_command", "input": {"command": "make"}}
            for i in idents]
    results = [{"type": "tool_result", "tool_use_id": i, "content": TEXTS[i]} for i in idents]
    original = [{"role": "user", "content": [{"type": "text", "text": "the task"}]},
                {"role": "assistant", "content": call}, {"role": "user", "content": results}]
    status = {i.key: (i.status, i.where) for i in
              manifest(original, original[:1], root).items if i.kind == "tool_use"}
    for ident in idents[:3]:  # complete on disk, never "changed"
        assert status[ident] == (ON_DISK, relative(ident).as_posix())
    # The batch ended with the error; a rerun keeps the three files and adds the rest.
    with offload_batch(root):
        for ident, text in TEXTS.items():
            write_offloaded(root, relative(ident), text)
    assert verify(root) == [] and len(read_jsonl(root / CHECKSUMS).records) == len(TEXTS)
    assert not [p for p in (root / OFFLOAD_DIR).iterdir() if p.name.endswith(".part")]


# Held across batches (``OffloadFolders``, the stage-5 ledger's): one walk a session, the same
# fsyncs and order in every batch, and a folder that moved is reached afresh.


def walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders ``safe_path.reach`` walked to, in order."""
    from ctxlab.tools import safe_path

    reached: list[str] = []
    real = safe_path.reach
    monkeypatch.setattr(safe_path, "reach",
                        lambda path, **kw: (reached.append(os.fspath(path)), real(path, **kw))[1])
    return reached


def test_held_folders_are_walked_once_and_each_batch_keeps_its_fsyncs_and_order(
        root: Path, fsyncs: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    reached = walks(monkeypatch)
    held = OffloadFolders(root)
    idents = list(TEXTS)
    for start in (0, 3, 5):  # three batches: 3, 2 and 2 files
        fsyncs.clear()
        with held.batch():
            for ident in idents[start:start + (3 if start == 0 else 2)]:
                write_offloaded(root, relative(ident), TEXTS[ident])
        k = len(fsyncs) - 2
        assert all(name.endswith(".part") for name in fsyncs[:k])
        assert fsyncs[k:] == ["folder", CHECKSUMS.name]
    assert reached == [str(root / OFFLOAD_DIR), str(root / CHECKSUMS.parent)]  # once each
    held.close()
    assert verify(root) == [] and len(read_jsonl(root / CHECKSUMS).records) == len(TEXTS)


def test_held_folders_write_the_same_bytes_as_unbatched_writes(tmp_path: Path) -> None:
    alone, held_root = tmp_path / "alone", tmp_path / "held"
    for ident, text in TEXTS.items():
        write_offloaded(alone, relative(ident), text)
    with OffloadFolders(held_root) as held:
        for ident, text in TEXTS.items():
            with held.batch():
                write_offloaded(held_root, relative(ident), text)
    assert files(held_root) == files(alone)


def test_a_held_folder_moved_away_is_reached_again_at_its_path(root: Path) -> None:
    """The agent renames the offload folder between two batches: the next file is stored
    under the path its placeholder names, not in the folder that moved."""
    with OffloadFolders(root) as held:
        with held.batch():
            write_offloaded(root, relative("toolu_00"), "first")
        (root / OFFLOAD_DIR).rename(root / "moved")
        with held.batch():
            write_offloaded(root, relative("toolu_01"), "second")
    assert (root / relative("toolu_01")).read_text() == "second"
    assert sorted(p.name for p in (root / "moved").iterdir()) == ["toolu_00.txt"]


def test_a_held_folder_removed_is_made_again_as_a_fresh_walk_would(root: Path) -> None:
    with OffloadFolders(root) as held:
        with held.batch():
            write_offloaded(root, relative("toolu_00"), "first")
        shutil.rmtree(root / OFFLOAD_DIR.parent)
        with held.batch():
            write_offloaded(root, relative("toolu_01"), "second")
    assert (root / relative("toolu_01")).read_text() == "second"
    assert verify(root) == [f"{relative('toolu_00').as_posix()}: missing"]  # reported, not hidden


@pytest.mark.parametrize("where", [OFFLOAD_DIR, OFFLOAD_DIR.parent])
def test_a_link_planted_for_a_held_folder_is_refused(root: Path, tmp_path: Path,
                                                     where: Path) -> None:
    """The folder (or the one above it) is moved away and a symlink to the outside takes its
    name after a batch: the next batch refuses the path, as a fresh walk does, and writes
    nothing outside."""
    outside = tmp_path / "outside"
    (outside / OFFLOAD_DIR.name).mkdir(parents=True)
    with OffloadFolders(root) as held:
        with held.batch():
            write_offloaded(root, relative("toolu_00"), "first")
        (root / where).rename(root / "moved")
        (root / where).symlink_to(outside if where == OFFLOAD_DIR.parent else
                                  outside / OFFLOAD_DIR.name)
        with pytest.raises(UnsafePathError, match="symlink"), held.batch():
            write_offloaded(root, relative("toolu_01"), "second")
    assert not [p for p in outside.rglob("*") if p.is_file()]


def test_an_error_halfway_through_a_held_batch_leaves_the_holder_usable(root: Path) -> None:
    """A batch stopped by an error still syncs and records what it linked; the next batch
    through the same held folders stores the rest, with no leftovers."""
    idents = list(TEXTS)
    with OffloadFolders(root) as held:
        with pytest.raises(RuntimeError, match="halfway"), held.batch():
            for ident in idents[:3]:
                write_offloaded(root, relative(ident), TEXTS[ident])
            raise RuntimeError("halfway")
        assert verify(root) == [] and len(read_jsonl(root / CHECKSUMS).records) == 3
        with held.batch():
            for ident, text in TEXTS.items():
                write_offloaded(root, relative(ident), text)
    assert verify(root) == [] and len(read_jsonl(root / CHECKSUMS).records) == len(TEXTS)
    assert not [p for p in (root / OFFLOAD_DIR).iterdir() if p.name.endswith(".part")]


def test_held_folders_are_released_by_close_and_by_dropping_them(root: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    held = OffloadFolders(root)
    with held.batch():
        write_offloaded(root, relative("toolu_00"), "x")
    assert len(os.listdir("/proc/self/fd")) > before  # held after the batch
    held.close()
    held.close()
    assert len(os.listdir("/proc/self/fd")) == before
    gc.disable()  # dropping them must be enough, without a collection
    try:
        for n in range(20):
            again = OffloadFolders(root)
            with again.batch():
                write_offloaded(root, relative(f"toolu_{n:02d}"), "y")
            del again
        assert len(os.listdir("/proc/self/fd")) == before
    finally:
        gc.enable()


def test_stage_5s_band_walks_once_a_session_and_keeps_the_safe_order_every_turn(
        fsyncs: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The band's batches go through the ledger's held folders: one walk to the offload
    folder and one to the session's log folder a session (the bench runs two: its turns
    durable, then without fsync), and in every batch turn each saved copy is synced before
    its link, the links before the checksums, the checksums before the decisions, and the
    decisions before the frozen mark, if any."""
    from ctxlab.bench.band import band_turns
    from ctxlab.bench.turns import overhead_tokens
    from ctxlab.workbook.layout import load_stage

    reached = walks(monkeypatch)
    run = band_turns(load_stage(5), 30_000, turns=4, overhead=overhead_tokens(), repeats=1)
    assert run["batches"] >= 3
    assert Counter(Path(p).name for p in reached) == {CHECKSUMS.parent.name: 2,
                                                      OFFLOAD_DIR.name: 2}
    synced = " ".join("part" if name.endswith(".part") else name for name in fsyncs)
    batch = r"(?:part )+folder offloaded\.jsonl decisions\.jsonl(?: anchor-marks\.jsonl)?"
    first = synced.index("part")  # before it: the session's first notes (the task's texts)
    assert re.fullmatch(f"{batch}(?: {batch})*", synced[first:])  # nothing out of order
    assert len(re.findall(batch, synced)) == run["batches"]
