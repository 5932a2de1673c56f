"""The oracle: a lower bound for any context layer, built from the scenario's plan (§12.1).

It is a bound, not a method: it reads the plan, which no real layer can. Before each request it
keeps exactly what the agent will still need and clears every other tool result's content:

- a result holding a fact that a step still to come needs, unless the agent noted that fact in
  its own words (then the note carries it; the newest copy is kept, the older ones go);
- the evidence that shows how far the plan got, when the call alone does not show it (a step
  that repeats an earlier call is done only when its output is visible);
- the latest read of each file a step still to come edits (the agent edits only what it sees,
  §10);
- every error: what the agent does next depends on a call that failed.

When the next step edits a file whose current content is nowhere in view (it changed on disk
after the agent read it), the oracle attaches it, saying so, as stage 4's rebuild does (§10.2).

Older images go too: the agent reads no fact from an image.

Messages, calls, the user's texts and the agent's notes all stay (a call is how the agent knows
what it did), so nothing is re-fetched and no pair is broken. It lays out stage 5's cache zones
(``CacheOnly``) and sends the volatile context after the newest message, as stage 5 does. Every
other row of ``ctxlab compare`` that completes the task sends at least as many tokens.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from .beyond.layers import CacheOnly
from .brain.plan import furthest
from .brain.visible import Finder, result_text, scan
from .brain.workset import _committed, holds_copy
from .scenarios import Scenario
from .session import Session

Messages = list[dict[str, Any]]
CLEARED = "[cleared: not needed any more]"
IMAGE = "[image]"


class Oracle(CacheOnly):
    """What the plan says the agent still needs, and nothing else."""

    def __init__(self, plan: Scenario) -> None:
        super().__init__()
        self.plan = plan
        self.finder = Finder(plan)

    def prepare(self, messages: Messages, session: Session) -> Messages:
        session.dynamic_at_end = True
        needed, edits = self._still_needed(messages, session)
        kept = self._reduce(self._current_copies(messages, session), needed, edits)
        return super().prepare(kept, session)

    def _current_copies(self, messages: Messages, session: Session) -> Messages:
        """When the next step edits a file and no text in view holds its current content (it
        changed on disk after the agent read it), attach that content to the newest message,
        saying so — what the post-compaction rebuild does (§10.2)."""
        seen = scan(SimpleNamespace(system=session.system, messages=messages), self.finder)
        nxt = furthest(self.plan, seen) + 1
        if nxt >= len(self.plan.steps) or not messages or messages[-1]["role"] != "user":
            return messages
        step = self.plan.steps[nxt]
        if step.call.tool != "edit_file":
            return messages
        path = step.call.input["path"]
        lines = _committed(self.plan.source, path)
        texts = [result_text(b.get("content", "")) if b.get("type") == "tool_result"
                 else str(b.get("text", "")) for m in messages for b in _blocks(m)]
        if not lines or any(holds_copy(t, step.call, lines) for t in texts):
            return messages
        try:
            content = (session.workspace / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return messages
        note = {"type": "text", "text": f"{path} changed on disk since it was read; its "
                                        f"current content:\n{content}"}
        last = messages[-1]
        return [*messages[:-1], {**last, "content": [*_blocks(last), note]}]

    def _still_needed(self, messages: Messages, session: Session) -> tuple[set[str], set[str]]:
        """(markers a later step needs or that show progress, paths a later step edits)."""
        seen = scan(SimpleNamespace(system=session.system, messages=messages), self.finder)
        done = furthest(self.plan, seen)
        later = self.plan.steps[done + 1:]
        needed = {self.plan.marker(f) for step in later for f in step.needs}
        needed |= {self.plan.marker(f) for f in self.plan.goal}
        if done >= 0:
            step = self.plan.steps[done]
            needed |= set(step.evidence) | {self.plan.marker(f) for f in step.yields}
            if not step.repeats:
                needed |= {c.mark for c in step.calls}
        edits = {c.input["path"] for step in later for c in step.calls if c.tool == "edit_file"}
        return needed, edits

    def _reduce(self, messages: Messages, needed: set[str], edits: set[str]) -> Messages:
        calls = {b["id"]: b for m in messages if m["role"] == "assistant"
                 for b in _blocks(m) if b.get("type") == "tool_use"}
        covered = set()  # needed markers that texts other than results already carry
        for message in messages:
            for block in _blocks(message):
                if block.get("type") == "text":
                    covered |= self._markers(block["text"]) & needed
                elif block.get("type") == "tool_use":
                    for value in (block.get("input") or {}).values():
                        if isinstance(value, str):
                            covered |= self._markers(value) & needed
        keep: set[int] = set()
        reads: set[str] = set()
        last = len(messages) - 1
        for i in range(len(messages) - 1, -1, -1):
            for block in reversed(_blocks(messages[i])):
                if block.get("type") != "tool_result":
                    continue
                found = self._markers(result_text(block.get("content", ""))) & needed
                call = calls.get(block.get("tool_use_id"), {})
                path = (call.get("input") or {}).get("path")
                read = call.get("name") == "read_file" and path in edits and path not in reads
                if found - covered or read or block.get("is_error"):
                    keep.add(id(block))
                    covered |= found
                    if read:
                        reads.add(path)
        return [_cleared(m, keep, i == last) for i, m in enumerate(messages)]

    def _markers(self, text: str) -> set[str]:
        return set(self.finder.find(text)[0])


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _cleared(message: dict[str, Any], keep: set[int], newest: bool) -> dict[str, Any]:
    """The message with unneeded results cleared; an older image goes too (no fact is ever
    read from an image)."""
    if message["role"] != "user" or isinstance(message["content"], str):
        return message
    blocks = [b if b.get("type") != "tool_result" or id(b) in keep
              else {**b, "content": CLEARED} for b in message["content"]]
    if not newest:
        blocks = [{"type": "text", "text": IMAGE} if b.get("type") == "image" else b
                  for b in blocks]
    return {**message, "content": blocks}


def make_oracle(plan: Scenario) -> Oracle:
    """The oracle for ``plan``."""
    return Oracle(plan)
