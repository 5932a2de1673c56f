"""Crash-safe files (issue 8, item 3): atomic or append-only, fsync'd, torn lines survived.

A crash can stop a write anywhere. What must hold for each file the context layers write:

- an offloaded result (stage 3) appears under its name complete or not at all — written to a
  temporary file, fsync'd, then linked; the first complete write wins;
- the transcript archive (stage 4), the frozen decisions and the user's texts (stage 5), and the
  session journal (the runner) are append-only, one fsync'd line per record; a torn last line
  is skipped when read and never swallows the next record.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from s3_offload import OFFLOAD_DIR, offload
from s4_summarize import TRANSCRIPT, archive, read_transcript
from s5_pipeline.constraints import LOG_NAME, UserTexts
from s5_pipeline.ledger import LOG, Ledger

from ctxlab.journal import JOURNAL, Journal, resume_point
from ctxlab.telemetry import JsonlWriter, read_jsonl

MESSAGE = {"role": "user", "content": [{"type": "text", "text": "keep me 保留"}]}


def tear(path: Path, text: str = '{"id": "toolu_torn", "lay') -> None:
    """Leave a half-written last line, as a crash in the middle of a write does."""
    with open(path, "ab") as stream:
        stream.write(text.encode())


# ---- offload: atomic -------------------------------------------------------------------------

def test_offload_crash_before_the_link_leaves_no_file_under_the_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(fd: int) -> None:
        raise OSError("simulated power cut during fsync")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError, match="power cut"):
        offload(tmp_path, "toolu_01", "x" * 100_000)
    folder = tmp_path / OFFLOAD_DIR
    assert not (folder / "toolu_01.txt").exists()
    assert list(folder.iterdir()) == []  # the temporary file is gone too
    monkeypatch.undo()
    offload(tmp_path, "toolu_01", "complete")
    assert (folder / "toolu_01.txt").read_text() == "complete"


def test_offload_first_complete_write_wins(tmp_path: Path) -> None:
    first = offload(tmp_path, "toolu_02", "first")
    second = offload(tmp_path, "toolu_02", "second")
    assert first == second and first.read_text() == "first"
    assert [p.name for p in first.parent.iterdir()] == ["toolu_02.txt"]


# ---- append-only logs: torn lines ------------------------------------------------------------

def test_transcript_torn_line_is_skipped_and_not_extended(tmp_path: Path) -> None:
    archive(tmp_path, [MESSAGE])
    tear(tmp_path / TRANSCRIPT, '{"role": "user", "cont')
    archive(tmp_path, [MESSAGE, MESSAGE])
    assert read_transcript(tmp_path / TRANSCRIPT) == [MESSAGE] * 3


def test_ledger_torn_line_never_swallows_the_next_decision(tmp_path: Path) -> None:
    Ledger(tmp_path).record("toolu_a", "cleared a", "microcompact")
    tear(tmp_path / LOG)
    after_crash = Ledger(tmp_path)
    assert set(after_crash.decisions) == {"toolu_a"}  # the torn decision was never used
    after_crash.record("toolu_b", "cleared b", "microcompact")
    assert set(Ledger(tmp_path).decisions) == {"toolu_a", "toolu_b"}


def test_ledger_lines_are_ascii_so_any_text_can_be_logged(tmp_path: Path) -> None:
    Ledger(tmp_path).record("toolu_c", "lone surrogate \udc80 and 中文", "offload")
    assert (tmp_path / LOG).read_bytes().isascii()
    assert Ledger(tmp_path).decisions["toolu_c"]["content"] == "lone surrogate \udc80 and 中文"


def test_user_texts_survive_a_crash_in_the_session_log(tmp_path: Path) -> None:
    texts = UserTexts()
    texts.attach(Ledger(tmp_path))
    texts.remember([{"role": "user", "content": "Do not modify config.py."}])
    tear(tmp_path / LOG.with_name(f"{LOG_NAME}.jsonl"), '{"text": "half')
    texts.remember([{"role": "user", "content": "Keep the logs."}])
    resumed = UserTexts()
    resumed.attach(Ledger(tmp_path))
    assert resumed.texts == ["Do not modify config.py.", "Keep the logs."]


def test_journal_torn_line_resumes_from_the_previous_request(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    first = [MESSAGE]
    second = [MESSAGE, {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
              MESSAGE]
    journal.sent(first)
    journal.sent(second)
    journal.close()
    assert resume_point(tmp_path).history == second
    tear(tmp_path / JOURNAL, '{"keep": 3, "add": [{"role"')
    point = resume_point(tmp_path)
    assert point.history == second and point.torn_lines == 1
    again = Journal(tmp_path)  # the next append cuts the torn tail off first
    again.start_from(point)
    again.sent([*second, MESSAGE])
    again.close()
    assert read_jsonl(tmp_path / JOURNAL).torn_lines == 0
    assert resume_point(tmp_path).history == [*second, MESSAGE]


def test_journal_stores_deltas_not_whole_histories(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    history = [MESSAGE]
    for n in range(30):
        history = [*history, {"role": "assistant", "content": [{"type": "text",
                                                                 "text": f"step {n}"}]},
                   MESSAGE]
        journal.sent(history)
    journal.close()
    lines = (tmp_path / JOURNAL).read_text().splitlines()
    assert all(len(json.loads(line)["add"]) <= 3 for line in lines)
    assert resume_point(tmp_path).history == history


def test_telemetry_log_torn_tail_is_cut_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    with JsonlWriter(path) as log:
        log.write({"turn": 1})
    tear(path, '{"turn": ')
    assert read_jsonl(path).torn_lines == 1
    with JsonlWriter(path) as log:
        log.write({"turn": 2})
    assert read_jsonl(path).records == [{"turn": 1}, {"turn": 2}]
