"""The working set: before editing a file the agent must see its content (DESIGN §4; §10).

A model edits text it can see. Before an ``edit_file`` it looks for a *copy* of the file in
the view: a text — a read's result, its own ``write_file`` input, a file the rebuild attached,
any message — that holds the edit's ``old`` text **and** another line of the file (at least
``MIN_LINE`` characters, from the committed version). Content decides, never a header: a
summary that quotes the buggy line alone is not a copy. With no copy in view, it reads the
file first (what the post-compaction rebuild saves, §10.1).

Staleness (§10.2, §10.5): a file may change on disk after the agent saw it (a generated
file, a second writer). The agent cannot know, so it works from the *latest* copy in view —
unless something visible says the file changed (a text naming the file and saying it changed
on disk, like the rebuild's mtime note): then the copy in that text is the current one, and
with no copy there it reads the file again. A step may name the edit a stale copy leads to
(``stale``); the agent makes it when the copy it believes is that one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from ..scenarios import Call, Scenario, Step
from ..sim import ModelView
from .visible import result_text

MIN_LINE = 8
CHANGED = r"\b(changed|modified|rewritten|updated)\b.{0,40}?\b(on disk|since)\b"
"""How a text says a file changed under the agent (the rebuild's mtime note says so), within
``NEAR`` characters after naming it."""
NEAR = 200


@lru_cache(maxsize=256)
def committed(source: Path, path: str) -> tuple[str, ...]:
    """The lines (stripped, long enough) of the committed file, or () when there is none."""
    try:
        text = (source / path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ()
    return tuple(s for line in text.splitlines() if len(s := line.strip()) >= MIN_LINE)


def _texts(view: ModelView) -> Iterator[str]:
    """Every visible text, in view order (thinking left out: earlier turns drop it)."""
    for block in view.system:
        yield str(block.get("text", ""))
    for message in view.messages:
        for block in message["content"]:
            kind = block.get("type")
            if kind == "text":
                yield str(block.get("text", ""))
            elif kind == "tool_result":
                yield result_text(block.get("content", ""))
            elif kind == "tool_use":
                yield from (v for v in (block.get("input") or {}).values() if isinstance(v, str))
            elif kind == "compaction":
                yield str(block.get("content") or "")


def holds_copy(text: str, call: Call, lines: tuple[str, ...]) -> bool:
    """Whether ``text`` shows the file around ``call``'s edit: its old text and another line."""
    old = call.input["old"]
    if old not in text:
        return False
    return any(line in text and line not in old for line in lines)


def says_changed(text: str, path: str) -> bool:
    """Whether ``text`` names ``path`` and, right after, says it changed on disk."""
    if path not in text:
        return False
    return re.search(re.escape(path) + rf".{{0,{NEAR}}}?" + CHANGED, text, re.I | re.S) is not None


def believed(view: ModelView, scenario: Scenario, step: Step,
             edit: Call) -> tuple[Call | None, bool]:
    """(the edit the agent makes from the copy it believes, whether it must read first).

    The versions it can tell apart are the step's edit and its ``stale`` edit, each matched by
    its own old text."""
    path = edit.input["path"]
    lines = committed(scenario.source, path)
    if not lines:
        return edit, False  # no committed text to recognise: nothing to check
    versions = [c for c in (edit, step.stale) if c is not None]
    latest = vouched = after_note = None
    flagged = False
    for text in _texts(view):
        copy = next((c for c in versions if holds_copy(text, c, lines)), None)
        if says_changed(text, path):
            vouched, flagged, after_note = copy, copy is None, None
        elif copy is not None:
            latest = copy
            after_note = copy if flagged else after_note
    if vouched is not None:  # "the text below is its current content"
        return vouched, False
    if flagged:
        return after_note, after_note is None
    return latest, latest is None


def before_edit(view: ModelView, scenario: Scenario, step: Step,
                calls: tuple[Call, ...]) -> tuple[tuple[Call, ...], list[Call]]:
    """The calls to make now: (edits as the believed copies have them, reads needed first)."""
    chosen: list[Call] = []
    reads: dict[str, Call] = {}
    for call in calls:
        if call.tool != "edit_file":
            chosen.append(call)
            continue
        edit, must_read = believed(view, scenario, step, call)
        if must_read or edit is None:
            path = call.input["path"]
            reads.setdefault(path, Call("read_file", {"path": path}))
        else:
            chosen.append(edit)
    return tuple(chosen), list(reads.values())
