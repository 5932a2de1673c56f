"""Stage 5 reuses stage 4's rebuild, mtime note included (§10.2, §10.5): on the stale-file
scenario the complete system edits the current file because the note is in view, and with the
note switched off it edits the stale copy and fails the check, as stage 4 does."""

from __future__ import annotations

import pytest
from s4_summarize.rebuild import CHANGED_NOTE

from ctxlab.ladder import Cell, runs
from ctxlab.scenarios import load


def _text(messages: list[dict]) -> str:
    return "\n".join(str(b.get("text", "")) for m in messages if isinstance(m["content"], list)
                     for b in m["content"])


def _edits(result) -> list[dict]:
    return [b["input"] for m in result.original if m["role"] == "assistant"
            for b in m["content"] if b.get("type") == "tool_use" and b["name"] == "edit_file"]


@pytest.mark.checklist("B.24")
def test_stage_5_edits_the_current_file_because_the_note_says_it_changed() -> None:
    step = next(s for s in load("stale-file").steps if s.stale is not None)
    noted = runs.get(Cell.parse("5"), "stale-file").result
    assert CHANGED_NOTE in _text(noted.messages)
    assert _edits(noted) == [step.call.input] and noted.summary.success
    plain = runs.get(Cell("5:no-mtime-notes", 5, {"summary": {"mtime_notes": False}}),
                     "stale-file").result
    assert CHANGED_NOTE not in _text(plain.messages)
    assert _edits(plain) == [step.stale.input] and not plain.summary.success
