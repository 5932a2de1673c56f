"""Replaying a log through a context layer: the hooks' contract, the check after every
transformation, sizes from the recorded usage, disk, carry and summary calls (§9.2, §12.6)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from ctxlab import models
from ctxlab.replay import Replay, choose_model, load_transcript, replay_file
from ctxlab.replay.measure import count_messages
from ctxlab.session import Session
from ctxlab.workbook.layout import impl_root

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
SPLIT = FIXTURES / "split-interleaved.jsonl"
TASK = "Fix the failing test in calc.py. Do not touch setup.cfg."


def run(layer: Any, path: Path = SPLIT, tmp: Path | None = None, **kwargs: Any):
    transcript = load_transcript(path)
    return Replay(transcript, layer, stage=0, model="claude-haiku-4-5", model_note="test",
                  workspace=tmp or Path("/nonexistent"), **kwargs).run()


class Spy:
    """Records what each hook saw, changes nothing."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.times: list[float] = []

    def prepare(self, messages: list[dict[str, Any]], session: Session) -> list[dict[str, Any]]:
        self.calls.append(("prepare", len(messages), messages[-1]["role"]))
        self.times.append(session.now())
        return messages

    def admit(self, results: list[dict[str, Any]], session: Session) -> list[dict[str, Any]]:
        ids = [b["tool_use_id"] for b in results]
        self.calls.append(("admit", ids, [session.tool_names[i] for i in ids]))
        return results


class SummarizeOnce:
    """Asks the session's model for a summary once the history has 7 messages, and keeps only
    that summary: a stand-in for a stage-4 layer."""

    def prepare(self, messages: list[dict[str, Any]], session: Session) -> list[dict[str, Any]]:
        if len(messages) != 7:
            return messages
        ask = {"role": "user", "content": "Please summarize the conversation so far."}
        reply = session.create([*messages, ask], kind="summary", tool_choice={"type": "none"})
        session.report("summary", 100, "test")
        return [{"role": "user", "content": reply.content[0].text}]

    def admit(self, results: list[dict[str, Any]], session: Session) -> list[dict[str, Any]]:
        return results


def test_admit_sees_each_turns_results_before_the_next_prepare(tmp_path: Path) -> None:
    spy = Spy()
    report = run(spy, tmp=tmp_path)
    assert spy.calls[:4] == [
        ("prepare", 1, "user"),
        ("admit", ["toolu_01A1read", "toolu_01A1test", "toolu_01A1bash"],
         ["Read", "Read", "Bash"]),
        ("prepare", 3, "user"),
        ("admit", ["toolu_01A2grep", "toolu_01A2readme"], ["Grep", "Read"]),
    ]
    assert [c[0] for c in spy.calls].count("prepare") == len(report.points) == 6
    assert report.checks == 6 and report.violations == [] and report.events == []
    first_reply = json.loads(SPLIT.read_text().splitlines()[1])
    assert spy.times[0] == datetime.fromisoformat(first_reply["timestamp"]).timestamp()
    assert spy.times == sorted(spy.times) and len(set(spy.times)) == 6  # the log's clock


def test_sizes_come_from_the_recorded_usage_where_there_is_one(tmp_path: Path) -> None:
    report = run(None, tmp=tmp_path)
    assert report.points[0].tokens == 3 + 0 + 14210  # input + cache read + cache write
    assert all(p.tokens == p.baseline for p in report.points)
    dirty = run(None, FIXTURES / "dirty.jsonl", tmp_path)  # no usage: the tokenizer alone
    first = load_transcript(FIXTURES / "dirty.jsonl").messages[:1]
    assert dirty.points[0].tokens == count_messages(first) and dirty.points[0].overhead == 0


def test_a_smaller_window_makes_truncation_fire_and_shows_what_was_lost() -> None:
    report = replay_file(SPLIT, 2, window=2_000)
    assert report.window == 2_000
    assert report.layers()["truncate"].triggers >= 1 and report.violations == []
    assert report.points[-1].occupancy == report.points[-1].tokens / 2_000
    lost = report.carry[0]
    assert "/repo/calc.py" in lost.files and lost.messages_removed > 0
    assert lost.lost_user_messages == []  # stage 2 keeps the task, the first message


def test_the_check_catches_what_naive_truncation_breaks() -> None:
    report = replay_file(SPLIT, 2, window=400, options={"naive": True})
    assert report.violations, "naive truncation orphans a tool_result (§9.2)"
    assert "`tool_result` block(s) provided when previous message does not contain any " \
           "`tool_use` blocks" in report.violations[0].message
    assert report.to_dict()["violations"] == len(report.violations)


def test_offload_writes_the_big_result_to_disk_at_admit() -> None:
    report = replay_file(SPLIT, 3, options={"per_result": 2_000})
    assert list(report.disk) == [".task_outputs/tool-results/toolu_01A1bash.txt"]
    assert [(e.hook, e.layer, e.turn) for e in report.events] == [("admit", "offload", 1)]
    assert report.violations == []


def test_a_layers_summary_call_is_answered_offline_and_billed(tmp_path: Path) -> None:
    report = run(SummarizeOnce(), tmp=tmp_path)
    assert report.errors == []  # the recorded thinking blocks were accepted (R14)
    assert report.bill.summary_calls == 1 and report.bill.summary_usd > 0
    carry = report.carry[0]
    assert carry.turn == 4 and carry.layers == ["summary"] and carry.messages_removed == 7
    assert carry.user_messages == 1 and carry.lost_user_messages == []
    assert carry.lost_files == [] and "/repo/README.md" in carry.files
    assert report.violations == []


def test_truncation_loses_a_later_user_message() -> None:
    cut = replay_file(FIXTURES / "resumed.jsonl", 2, window=120)
    assert ["Which one is the oldest?"] in [c.lost_user_messages for c in cut.carry]


@pytest.mark.skipif(not (impl_root("solutions") / "s4_summarize").exists(),
                    reason="stage 4 is not built yet")
def test_stage_four_summarizes_a_replayed_log_without_breaking_a_rule() -> None:
    report = replay_file(SPLIT, 4, model="claude-haiku-4-5", window=12_000,
                         options={"keep_recent": 0.05})
    assert report.layers(), "a 12K window forces stage 4 to act"
    assert report.violations == [] and report.errors == []


def test_the_model_is_the_logs_when_the_table_knows_it() -> None:
    assert choose_model(None, "claude-sonnet-4-5-20250929") == (
        "claude-sonnet-4-5", "the model recorded in the log")
    assert choose_model(None, "claude-opus-4-5-20251101")[0] == "claude-opus-4-5"
    assert choose_model(None, "claude-opus-4-6[1m]")[0] == "claude-opus-4-6"
    model, note = choose_model(None, "claude-unknown-9")
    assert model == models.DEFAULT_MODEL and "not in the model table" in note
    assert choose_model("claude-sonnet-4-6", "claude-haiku-4-5")[0] == "claude-sonnet-4-6"
    assert replay_file(SPLIT, 1).model == "claude-sonnet-4-5"
