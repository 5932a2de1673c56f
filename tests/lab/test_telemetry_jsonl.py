"""Crash-safe JSONL session logs: durable lines, torn tails skipped and counted (§12.6)."""

from __future__ import annotations

import pytest

from ctxlab.telemetry import (
    JsonlWriter,
    RunSummary,
    SessionLog,
    TurnRecord,
    load_session,
    read_jsonl,
    record_from_usage,
    tool_call,
)
from ctxlab.telemetry import jsonl as jsonl_module


def turn(n: int) -> TurnRecord:
    return record_from_usage(n, "agent", {"input_tokens": 100 * n, "output_tokens": 10},
                             model="claude-haiku-4-5", messages_sent=2 * n,
                             estimated_tokens=90 * n,
                             tool_calls=[tool_call("read_file", {"path": "文件.py"})],
                             compactions=[{"layer": "snip", "tokens_freed": 5, "trigger": "t"}])


def test_round_trip_and_each_line_is_on_disk_before_close(tmp_path, monkeypatch) -> None:
    synced: list[int] = []
    real_fsync = jsonl_module.os.fsync
    monkeypatch.setattr(jsonl_module.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    path = tmp_path / "logs" / "run.jsonl"
    writer = JsonlWriter(path)
    writer.write({"type": "turn", "turn": 1, "text": "中文"})
    assert read_jsonl(path).records == [{"type": "turn", "turn": 1, "text": "中文"}]
    writer.write({"type": "summary", "ok": True})
    writer.close()
    assert len(synced) == 2
    contents = read_jsonl(path)
    assert contents.records[1] == {"type": "summary", "ok": True}
    assert contents.torn_lines == 0


def test_writer_appends_to_an_existing_log(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    for n in (1, 2):
        with JsonlWriter(path) as writer:
            writer.write({"n": n})
    assert read_jsonl(path).records == [{"n": 1}, {"n": 2}]


def test_torn_last_line_is_skipped_and_counted(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    with JsonlWriter(path) as writer:
        writer.write({"n": 1})
        writer.write({"n": 2})
    with path.open("ab") as f:
        f.write(b'{"n": 3, "text": "half wri')  # the crash hit mid-line
    contents = read_jsonl(path)
    assert contents.records == [{"n": 1}, {"n": 2}]
    assert contents.torn_lines == 1


def test_reopening_cuts_the_torn_tail_so_new_lines_stay_whole(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"n": 1}\n{"n": 2, "x')
    with JsonlWriter(path) as writer:
        writer.write({"n": 3})
    contents = read_jsonl(path)
    assert contents.records == [{"n": 1}, {"n": 3}]
    assert contents.torn_lines == 0


def test_complete_last_line_without_newline_is_kept(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"n": 1}\n{"n": 2}', encoding="utf-8")
    assert read_jsonl(path).records == [{"n": 1}, {"n": 2}]


def test_a_bad_line_before_the_end_is_corruption(tmp_path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"n": 1}\nnot json\n{"n": 3}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        read_jsonl(path)


def test_session_log_round_trip_with_a_crash_before_the_summary(tmp_path) -> None:
    path = tmp_path / "session.jsonl"
    records = [turn(1), turn(2)]
    summary = RunSummary.from_records(records, stage=3, scenario="long-task", success=True)
    with SessionLog(path) as log:
        for r in records:
            log.turn(r)
        log.summary(summary)
    raw = read_jsonl(path).records
    assert [r["type"] for r in raw] == ["turn", "turn", "summary"]
    session = load_session(path)
    assert session.turns == records
    assert session.summaries == [summary]

    crashed = tmp_path / "crashed.jsonl"
    with SessionLog(crashed) as log:
        log.turn(records[0])
    with crashed.open("ab") as f:
        f.write(b'{"type": "turn", "turn": 2, "kin')
    partial = load_session(crashed)
    assert partial.turns == records[:1]
    assert partial.summaries == [] and partial.torn_lines == 1
