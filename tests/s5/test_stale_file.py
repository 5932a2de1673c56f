"""Stage 5 reuses stage 4's rebuild, mtime note included (§10.2, §10.5), and attaches a file
that changed on disk with that note as soon as it changed (``changed``: below the trigger the
summary, and so the rebuild, seldom runs): on the stale-file scenario the complete system edits
the current file because the note is in view, and with the note switched off it edits the
stale copy and fails the check, as stage 4 does."""

from __future__ import annotations

import pytest
from s4_summarize.rebuild import CHANGED_NOTE
from s5_pipeline.changed import LAYER as CHANGED_LAYER

from ctxlab.ladder import Cell, runs
from ctxlab.scenarios import load


def _text(messages: list[dict]) -> str:
    return "\n".join(str(b.get("text", b.get("content", ""))) for m in messages
                     if isinstance(m["content"], list) for b in m["content"])


def _noted(result) -> str:
    """The texts the pipeline attached to results as notes, as its ledger recorded them (a
    later batch may clear the result that carried one, once the agent has seen it)."""
    return "\n".join(d["content"] for d in result.layer.ledger.history
                     if d["layer"] == CHANGED_LAYER)


def _edits(result) -> list[dict]:
    return [b["input"] for m in result.original if m["role"] == "assistant"
            for b in m["content"] if b.get("type") == "tool_use" and b["name"] == "edit_file"]


@pytest.mark.checklist("B.24")
def test_stage_5_edits_the_current_file_because_the_note_says_it_changed() -> None:
    step = next(s for s in load("stale-file").steps if s.stale is not None)
    noted = runs.get(Cell.parse("5"), "stale-file").result
    assert CHANGED_NOTE in _text(noted.messages) + _noted(noted)
    assert _edits(noted) == [step.call.input] and noted.summary.success
    plain = runs.get(Cell("5:no-mtime-notes", 5, {"summary": {"mtime_notes": False}}),
                     "stale-file").result
    assert CHANGED_NOTE not in _text(plain.messages) + _noted(plain)
    assert _edits(plain) == [step.stale.input] and not plain.summary.success
