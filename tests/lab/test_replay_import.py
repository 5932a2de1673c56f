"""Importing Claude Code session logs: every trap of real-transcripts §4–§5, on small synthetic
fixtures (``fixtures/transcripts/``, described in its README)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from s2_truncate import assert_messages_valid

from ctxlab.replay import TranscriptError, load_transcript, replay_file
from ctxlab.replay.blocks import IMAGE_PLACEHOLDER
from ctxlab.replay.lines import parse_lines

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
ALL = sorted(FIXTURES.glob("*.jsonl"))


def blocks(messages, kind):
    return [b for m in messages for b in m["content"] if b["type"] == kind]


def test_there_is_a_fixture_for_every_trap() -> None:
    assert {p.stem for p in ALL} >= {"split-interleaved", "resumed", "compacted",
                                     "trailing-call", "dirty", "images", "subagent"}


@pytest.mark.parametrize("whole_file", [False, True], ids=["from-boundary", "whole-file"])
@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_every_fixture_imports_to_a_valid_history(path: Path, whole_file: bool) -> None:
    messages = load_transcript(path, whole_file=whole_file).messages
    assert_messages_valid(messages)
    roles = [m["role"] for m in messages]
    assert all(a != b for a, b in zip(roles, roles[1:], strict=False)), "roles alternate"
    uses = [b["id"] for b in blocks(messages, "tool_use")]
    assert len(uses) == len(set(uses)) == len(blocks(messages, "tool_result"))


def test_split_responses_are_merged_and_results_follow_call_order() -> None:
    t = load_transcript(FIXTURES / "split-interleaved.jsonl")
    first, answer = t.messages[1], t.messages[2]
    assert [b["type"] for b in first["content"]] == ["thinking", "text", "tool_use", "tool_use",
                                                     "tool_use"]
    calls = [b["id"] for b in first["content"] if b["type"] == "tool_use"]
    assert [b["tool_use_id"] for b in answer["content"]] == calls  # the Bash result came first
    streamed = t.messages[3]  # tool_use, result, tool_use, result under one message.id
    assert [b["name"] for b in streamed["content"]] == ["Grep", "Read"]
    assert len(t.messages[4]["content"]) == 2
    assert all(set(b) == {"type", "id", "name", "input"} for b in blocks(t.messages, "tool_use"))
    assert all(b["signature"] for b in blocks(t.messages, "thinking"))
    assert t.report.usage_records == 6
    assert t.usage(1)["output_tokens"] == 160  # the usage of the response's last line


def test_resumed_copies_are_dropped_once_each() -> None:
    t = load_transcript(FIXTURES / "resumed.jsonl")
    texts = [b["text"] for b in blocks(t.messages, "text")]
    assert texts.count("Summarize the open issues in ISSUES.md.") == 1
    assert sum("two open issues" in x for x in texts) == 1  # copied while still open
    assert t.report.duplicates_dropped == 6
    assert t.report.client_messages_dropped == 1  # the "<synthetic>" "No response requested."
    assert "No response requested." not in texts
    assert t.messages[-2]["content"] == [
        {"type": "text", "text": "[Request interrupted by user]"},
        {"type": "text", "text": "Continue: draft a reply to the Safari reporter."}]


def test_the_last_compaction_boundary_starts_the_history_by_default() -> None:
    t = load_transcript(FIXTURES / "compacted.jsonl")
    assert t.messages[0]["content"][0]["text"].startswith("This session is being continued")
    used = t.report.boundary_used
    assert used is not None and (used.trigger, used.pre_tokens) == ("manual", 21558)
    assert "Set up structured logging" not in json.dumps(t.messages)
    assert any("compaction boundary" in note for note in t.report.notes)


def test_the_whole_file_keeps_the_old_history_and_drops_the_summary() -> None:
    t = load_transcript(FIXTURES / "compacted.jsonl", whole_file=True)
    assert t.messages[0]["content"][0]["text"].startswith("Set up structured logging")
    assert "This session is being continued" not in json.dumps(t.messages)
    assert t.report.summaries_dropped == 1 and t.report.boundary_used is None
    assert len(t.messages) > len(load_transcript(FIXTURES / "compacted.jsonl").messages)


def test_a_trailing_unanswered_call_gets_a_synthetic_error_result_and_a_note() -> None:
    t = load_transcript(FIXTURES / "trailing-call.jsonl")
    last = t.messages[-1]["content"]
    assert [b["tool_use_id"] for b in last] == ["toolu_01T2wca", "toolu_01T2wcb"]
    assert all(b["is_error"] for b in last)
    assert t.report.synthetic_results == ["toolu_01T2wca", "toolu_01T2wcb"]
    assert any("synthetic error result" in note for note in t.report.notes)


def test_dirty_lines_are_counted_never_fatal() -> None:
    t = load_transcript(FIXTURES / "dirty.jsonl")
    assert t.report.comment_lines == 2
    assert t.report.broken_lines == [8, 9]  # a line cut short, a JSON array
    assert t.report.sidechain_dropped == 2
    assert t.report.usage_records == 0
    assert [m["role"] for m in t.messages] == ["user", "assistant", "user", "assistant"]
    assert t.report.to_dict()["broken_lines"] == {"count": 2, "first": [8, 9]}


def test_images_and_thinking_are_kept_as_logged() -> None:
    raw = [json.loads(line) for line in (FIXTURES / "images.jsonl").read_text().splitlines()]
    pasted = raw[0]["message"]["content"][1]
    t = load_transcript(FIXTURES / "images.jsonl")
    assert t.messages[0]["content"][1] == pasted
    result = t.messages[2]["content"][0]
    assert result["content"][0]["type"] == "image"
    assert blocks(t.messages, "thinking")[0]["thinking"].startswith("The header bar")


def test_a_subagent_file_is_kept_although_every_line_is_a_sidechain() -> None:
    t = load_transcript(FIXTURES / "subagent.jsonl")
    assert t.report.sidechain_dropped == 0
    assert len(blocks(t.messages[1:2], "tool_use")) == 3


def test_lines_split_on_newline_only() -> None:
    text = '{"type": "user", "note": "a\u2028b\u0085c"}\n// comment\n\n{broken\n[1]\n'
    read = parse_lines(text)
    assert [e.data["note"] for e in read.entries] == ["a\u2028b\u0085c"]
    assert (read.lines, read.comments, read.broken) == (4, 1, [4, 5])


def test_a_message_that_is_not_an_object_is_a_skipped_line(tmp_path: Path) -> None:
    """A user or assistant line whose ``message`` is a string (or a list) has no role and no
    blocks: it is counted as a line that could not be read, and the rest is replayed."""
    user = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "fix it"}}
    lines = [user, {"type": "assistant", "uuid": "a0", "message": "just text"},
             {"type": "user", "uuid": "u2", "message": ["a", "list"]},
             {"type": "summary", "message": "a title"}]
    read = parse_lines("\n".join(json.dumps(line) for line in lines))
    assert [e.line for e in read.entries] == [1, 4] and read.broken == [2, 3]
    path = tmp_path / "string.jsonl"
    path.write_text(json.dumps(lines[1]) + "\n")
    with pytest.raises(TranscriptError, match="no conversation"):
        load_transcript(path)


@pytest.mark.parametrize(("content", "reason"), [
    (b"", "no conversation"),
    (b'{"type": "summary", "summary": "a title"}\n', "no conversation"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00", "binary"),
])
def test_a_file_without_conversation_is_one_clear_error(tmp_path: Path, content: bytes,
                                                       reason: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(TranscriptError, match=reason) as caught:
        load_transcript(path)
    assert "\n" not in str(caught.value)


def test_a_directory_is_not_a_session_log(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="directory"):
        load_transcript(tmp_path)


@pytest.mark.parametrize("damage", ["[REDACTED_AWS_KEY]", "!!not base64!!"])
def test_an_image_the_api_would_refuse_becomes_a_placeholder_and_a_note(
        tmp_path: Path, damage: str) -> None:
    """A redaction that rewrote part of an image's base64 (seen in a public log) would make
    every replayed request a 400; the image is replaced, counted and named in the notes."""
    lines = (FIXTURES / "images.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    image = first["message"]["content"][1]
    image["source"]["data"] = image["source"]["data"][:40] + damage + \
        image["source"]["data"][40:]
    lines[0] = json.dumps(first)
    path = tmp_path / "redacted.jsonl"
    path.write_text("\n".join(lines) + "\n")
    t = load_transcript(path)
    replaced = t.messages[0]["content"][1]
    assert replaced["type"] == "text" and replaced["text"].startswith(IMAGE_PLACEHOLDER)
    assert "base64" in replaced["text"]
    assert t.report.images_replaced == 1
    assert any("replaced by a text placeholder" in note for note in t.report.notes)
    assert load_transcript(FIXTURES / "images.jsonl").report.images_replaced == 0
    report = replay_file(path, 5)
    assert report.violations == [] and report.errors == []
