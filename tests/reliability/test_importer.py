"""The replay importer under generated logs (issue 8, item 1).

Each generated history is written as a Claude Code session log the way the client writes one:
one content block per line, the blocks of a response sharing its ``message.id``, tool results
on their own lines in any order, plus the noise of real files — re-logged copies with new
uuids, ``//`` comments, broken lines, harness lines, ``<synthetic>`` client lines. The importer
must give back exactly the history (modulo the merging the API does anyway), valid for the
simulator, every user message kept; and a replay of it through stage 5 on a small window must
never produce a history the API would reject.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from strategies import blocks_of, cases, histories, tool_ids, user_texts

from ctxlab.replay import load_transcript, replay_file
from ctxlab.replay.check import violation
from ctxlab.replay.signatures import SignatureBook

MODEL = "ctxlab-sim-32k"
RECORDED_MODEL = "claude-sonnet-4-5-20250929"


def normalized(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history as the API sees it: same-role messages merged, tool results first in call
    order (where the importer puts them, §9.2), then the user's own blocks."""
    merged: list[dict[str, Any]] = []
    for message in history:
        blocks = [dict(b) for b in blocks_of(message)]
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1]["content"] += blocks
        else:
            merged.append({"role": message["role"], "content": blocks})
    for i, message in enumerate(merged):
        if message["role"] != "user" or i == 0:
            continue
        calls = [b["id"] for b in merged[i - 1]["content"] if b.get("type") == "tool_use"]
        results = {b["tool_use_id"]: b for b in message["content"]
                   if b.get("type") == "tool_result"}
        rest = [b for b in message["content"] if b.get("type") != "tool_result"]
        message["content"] = [results[c] for c in calls] + rest
    return merged


class LogWriter:
    """Writes a history as Claude Code session-log lines, with the noise of real logs."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data
        self.lines: list[str] = []
        self.n = 0

    def _entry(self, kind: str, message: dict[str, Any], **extra: Any) -> str:
        self.n += 1
        entry = {"parentUuid": f"u-{self.n - 1}" if self.n > 1 else None,
                 "isSidechain": False, "type": kind, "uuid": f"u-{self.n}",
                 "timestamp": f"2026-03-02T10:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z",
                 "sessionId": "prop-session", "message": message, **extra}
        return json.dumps(entry, ensure_ascii=False)

    def noise(self) -> None:
        choice = self.data.draw(st.integers(0, 11))
        if choice == 0:
            self.lines.append("// a comment line of a published excerpt")
        elif choice == 1:
            self.lines.append('{"type": "user", "message": {"role": "user", "content": "cut sho')
        elif choice == 2:
            self.lines.append(json.dumps({"type": "progress", "data": {"step": self.n}}))
        elif choice == 3:
            self.lines.append(self._entry("assistant", {
                "model": "<synthetic>", "id": f"synthetic-{self.n}", "role": "assistant",
                "content": [{"type": "text", "text": "No response requested."}]}))
        elif choice == 4 and self.lines:  # a re-logged copy of an earlier conversation line
            earlier = self.data.draw(st.sampled_from(self.lines))
            try:
                entry = json.loads(earlier)
            except ValueError:
                return
            if isinstance(entry, dict) and entry.get("type") in ("user", "assistant") and \
                    entry.get("message", {}).get("model") != "<synthetic>":
                entry["uuid"] = f"copy-{self.n}"
                self.lines.append(json.dumps(entry, ensure_ascii=False))

    def write(self, history: list[dict[str, Any]]) -> str:
        response = 0
        previous = "user"
        for message in history:
            if message["role"] == "assistant":
                if previous != "assistant" or self.data.draw(st.booleans()):
                    response += 1  # a split piece keeps its id, or gets a new one
                mid = f"msg_prop_{response}"
                for block in blocks_of(message):
                    self.lines.append(self._entry("assistant", {
                        "model": RECORDED_MODEL, "id": mid, "type": "message",
                        "role": "assistant", "content": [block],
                        "usage": {"input_tokens": 3, "output_tokens": 7}}))
                    self.noise()
            elif isinstance(message["content"], str):
                self.lines.append(self._entry("user", {"role": "user",
                                                       "content": message["content"]}))
                self.noise()
            else:
                for block in message["content"]:
                    self.lines.append(self._entry("user", {"role": "user", "content": [block]}))
                    self.noise()
            previous = message["role"]
        return "\n".join(self.lines) + "\n"


@cases("importer")
@given(histories(), st.data())
def test_the_importer_gives_back_a_valid_history_and_every_user_message(
        history: list[dict[str, Any]], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory(prefix="ctxlab-log-") as folder:
        path = Path(folder) / "session.jsonl"
        path.write_text(LogWriter(data).write(history), encoding="utf-8")
        transcript = load_transcript(path)
    imported = transcript.messages
    assert violation(imported, model=MODEL, book=SignatureBook(imported)) is None
    assert imported == normalized(history)
    assert user_texts(imported) == user_texts(history)
    assert tool_ids(imported) == tool_ids(history)
    assert transcript.report.synthetic_results == []


@cases("replay")
@given(histories(min_rounds=4), st.data())
def test_a_replay_through_stage_5_never_breaks_the_history(
        history: list[dict[str, Any]], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory(prefix="ctxlab-log-") as folder:
        path = Path(folder) / "session.jsonl"
        path.write_text(LogWriter(data).write(history), encoding="utf-8")
        report = replay_file(path, 5, model=MODEL, options={"per_result": 20_000})
    assert report.violations == []
    assert report.errors == []
