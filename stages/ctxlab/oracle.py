"""The oracle: a lower bound for any context layer, built from the scenario's plan (§12.1).

It is a bound, not a method: it reads the plan, which no real layer can. What it may do:

- show every tool result in full in the request that delivers it — never less: a result is
  cleared or cut only after the agent has seen it whole once (a layer cannot know what a
  result holds before the agent reads it, so a bound that hides it earlier is no bound) —
  unless it is over §2.4's per-result budget for the window and not a read, or the results
  one reply asked for are, together, more than the window holds: then it is cut at once (the
  largest first, one by one until the request fits), because a layer need not show it whole
  either: stage 3 sends it to disk before the agent reads it (§2.4). A read is shown whole
  however long, as stage 3 shows it (§7.4's read exemption: a read sent to disk is read
  back, and loops);
- afterwards, keep of each result only what a step still to come needs, cutting it to the
  lines that hold it or clearing it:
  - the lines holding a fact a later step needs, unless the agent noted it in its own words
    or a newer copy is in view (then that carries it);
  - the lines holding the evidence of how far the plan got, when the call alone does not
    show it (a step that repeats an earlier call is done only when its output is visible);
  - in the latest read of each file a later step edits, the lines that edit replaces and
    the nearest line of the file on each side (the agent edits only what it sees, §10), or
    the whole read when it shows none of them;
  - every error, whole: what the agent does next depends on a call that failed;
- drop older images (no fact is read from an image), and, when the next step edits a file
  whose current content is nowhere in view (it changed on disk after the agent read it),
  attach that content, saying so, as stage 4's rebuild does (§10.2);
- lay out stage 5's cache zones (``CacheOnly``) and send the volatile context after the
  newest message, as stage 5 does, with one more breakpoint at the end of the agent's last
  reply: the next request cuts the newest results, so the prefix before them is the one it
  can read from the cache. The bound is on tokens, not dollars: every cut rewrites the end
  of the prefix, so its cache read share is low.

What it may not do: remove or rewrite a message, a call, the user's texts or the agent's own
texts (a call is how the agent knows what it did, so nothing is re-fetched and no pair is
broken); summarize; change the tools, the system prompt or the agent's replies. The peers
suite checks that no row of ``ctxlab compare`` that finishes the task sends fewer tokens.
"""

from __future__ import annotations

import bisect
import re
from types import SimpleNamespace
from typing import Any

from . import scenarios
from .brain.plan import furthest
from .brain.visible import Finder, result_text, scan
from .brain.workset import MIN_LINE, committed, holds_copy
from .peers.cache_only import CacheOnly
from .scenarios import Call, Scenario
from .session import Session

Messages = list[dict[str, Any]]
CLEARED = "[cleared: not needed any more]"
CUT = "[{kept} of {total} lines kept: the rest is not needed any more]"
IMAGE = "[image]"


class Oracle(CacheOnly):
    """What the plan says the agent still needs, and nothing else."""

    def __init__(self, plan: Scenario) -> None:
        super().__init__()
        self.plan = plan
        self.finder = Finder(plan)
        self.whole: dict[str, str] = {}  # each result as the tool returned it, by tool_use_id
        self.delivered: set[str] = set()  # the results some request has carried already

    def prepare(self, messages: Messages, session: Session) -> Messages:
        session.dynamic_at_end = True
        seen = scan(SimpleNamespace(system=session.system, messages=messages), self.finder)
        done = furthest(self.plan, seen)
        messages = self._current_copies(messages, session, done)
        needed, edits = self._needed(done)
        overflow: list[str] = []  # new results cut at once: together they overflow the window
        kept = self._reduce(messages, needed, edits, overflow)
        new = sorted((uid for uid in self.whole if uid not in self.delivered),
                     key=lambda uid: -len(self.whole[uid]))
        budget = per_result_budget(session.window)
        overflow += [uid for uid in new if len(self.whole[uid]) > budget
                     and session.tool_names.get(uid) not in read_tools()]
        if overflow:
            new = [uid for uid in new if uid not in overflow]
            kept = self._reduce(messages, needed, edits, overflow)
        while new and _too_long(kept, session):
            overflow.append(new.pop(0))
            kept = self._reduce(messages, needed, edits, overflow)
        self.delivered |= set(self.whole)
        return _before_newest(super().prepare(kept, session))

    def _current_copies(self, messages: Messages, session: Session, done: int) -> Messages:
        """When the next step edits a file and no text in view holds its current content (it
        changed on disk after the agent read it), attach that content to the newest message,
        saying so — what the post-compaction rebuild does (§10.2)."""
        nxt = done + 1
        if nxt >= len(self.plan.steps) or not messages or messages[-1]["role"] != "user":
            return messages
        step = self.plan.steps[nxt]
        if step.call.tool != "edit_file":
            return messages
        path = step.call.input["path"]
        lines = committed(self.plan.source, path)
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

    def _needed(self, done: int) -> tuple[set[str], dict[str, list[Call]]]:
        """(markers a later step needs or that show progress, path → the later edits)."""
        later = self.plan.steps[done + 1:]
        needed = {self.plan.marker(f) for step in later for f in step.needs}
        needed |= {self.plan.marker(f) for f in self.plan.goal}
        if done >= 0:
            step = self.plan.steps[done]
            needed |= set(step.evidence) | {self.plan.marker(f) for f in step.yields}
            if not step.repeats:
                needed |= {c.mark for c in step.calls}
        edits: dict[str, list[Call]] = {}
        for step in later:
            for call in step.calls:
                if call.tool == "edit_file":
                    edits.setdefault(call.input["path"], []).append(call)
        return needed, edits

    def _reduce(self, messages: Messages, needed: set[str], edits: dict[str, list[Call]],
                overflow: list[str]) -> Messages:
        calls = {b["id"]: b for m in messages if m["role"] == "assistant"
                 for b in _blocks(m) if b.get("type") == "tool_use"}
        covered = self._in_own_words(messages, needed)
        contents: dict[str, Any] = {}
        reads: set[str] = set()
        for block in reversed([b for m in messages for b in _blocks(m)
                               if b.get("type") == "tool_result"]):
            uid = block.get("tool_use_id", "")
            self.whole.setdefault(uid, result_text(block.get("content", "")))
            if uid not in self.delivered and uid not in overflow:  # shown whole this time
                covered |= self._markers(self.whole[uid]) & needed
                continue
            if block.get("is_error"):
                continue
            text = self.whole[uid]
            found = self._markers(text) & needed - covered
            spans = [m.span() for f in found for m in re.finditer(re.escape(f), text)]
            call = calls.get(uid, {})
            path = (call.get("input") or {}).get("path")
            if call.get("name") == "read_file" and path in edits and path not in reads:
                reads.add(path)
                spans += _edit_spans(text, edits[path], committed(self.plan.source, path))
            covered |= found
            cut = _cut(text, spans)
            if cut != text:
                contents[uid] = cut
        return [_cleared(m, contents, i == len(messages) - 1) for i, m in enumerate(messages)]

    def _in_own_words(self, messages: Messages, needed: set[str]) -> set[str]:
        """Needed markers that texts other than results carry (notes, call inputs)."""
        covered: set[str] = set()
        for message in messages:
            for block in _blocks(message):
                if block.get("type") == "text":
                    covered |= self._markers(block["text"]) & needed
                elif block.get("type") == "tool_use":
                    for value in (block.get("input") or {}).values():
                        if isinstance(value, str):
                            covered |= self._markers(value) & needed
        return covered

    def _markers(self, text: str) -> set[str]:
        return set(self.finder.find(text)[0])


def per_result_budget(window: int) -> int:
    """§2.4's per-result budget for ``window``, in characters, as stage 3 applies it there
    (the oracle's cut on arrival, the acceptance's offload drill)."""
    from s5_pipeline.thresholds import offload_budgets  # the selected implementation's

    return offload_budgets(window)[0]


def read_tools() -> frozenset[str]:
    """The tools whose results stage 3 never offloads, however long (§7.4's read exemption:
    a read sent to disk is read back, and loops): the oracle shows them whole once too."""
    from s3_offload import READ_TOOLS  # the selected implementation's

    return READ_TOOLS


def _too_long(messages: Messages, session: Session) -> bool:
    """Whether ``messages`` leave less than a tenth of the window for the system prompt, the
    tools and the reply (counted by the API when they have more characters than that: a
    token holds at least one)."""
    budget = 0.9 * session.window
    chars = sum(len(result_text(b.get("content", ""))) + len(str(b.get("text", "")))
                for m in messages for b in _blocks(m))
    return chars > budget and session.count(messages) > budget


def _edit_spans(text: str, edits: list[Call], lines: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where ``text`` shows what the later ``edits`` replace, widened to the nearest line of
    the file (``lines``: its committed lines) on each side; the whole text when it shows
    none of them."""
    spans = []
    for call in edits:
        old = call.input["old"]
        at = text.find(old)
        if at < 0:
            continue
        start, end = at, at + len(old)
        before = [m.start() for m in re.finditer(r"^.*$", text[:start], re.M)
                  if _file_line(m.group(), lines, old)]
        after = [m.end() for m in re.finditer(r"^.*$", text[end:], re.M)
                 if _file_line(m.group(), lines, old)]
        spans.append((before[-1] if before else start, end + after[0] if after else end))
    return spans or [(0, len(text))]


def _file_line(line: str, lines: tuple[str, ...], old: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= MIN_LINE and stripped in lines and stripped not in old


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` cut to the lines ``spans`` touch (cleared when none; whole when all)."""
    if not spans:
        return CLEARED
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    keep = sorted({i for a, b in spans
                   for i in range(bisect.bisect(starts, a) - 1,
                                  bisect.bisect(starts, max(a, b - 1)))})
    if len(keep) == len(lines):
        return text
    body = "\n".join(lines[i] for i in keep)
    return CUT.format(kept=len(keep), total=len(lines)) + "\n" + body


def _before_newest(messages: Messages) -> Messages:
    """A breakpoint on the last cacheable block of the message before the newest one (the
    newest holds one already: ``CacheOnly``)."""
    if len(messages) < 2 or isinstance(messages[-2]["content"], str):
        return messages
    newest = next((b["cache_control"] for b in messages[-1]["content"]
                   if isinstance(b, dict) and "cache_control" in b), None)
    blocks = [dict(b) for b in messages[-2]["content"]]
    for block in reversed(blocks):
        if newest is not None and block.get("type") not in ("thinking", "redacted_thinking") \
                and not (block.get("type") == "text" and not block.get("text")):
            block["cache_control"] = dict(newest)
            return [*messages[:-2], {**messages[-2], "content": blocks}, messages[-1]]
    return messages


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _cleared(message: dict[str, Any], contents: dict[str, Any], newest: bool) -> dict[str, Any]:
    """The message with each result's content as ``contents`` has it (the rest untouched);
    an older image goes too (no fact is ever read from an image)."""
    if message["role"] != "user" or isinstance(message["content"], str):
        return message
    blocks = [{**b, "content": contents[b["tool_use_id"]]}
              if b.get("type") == "tool_result" and b.get("tool_use_id") in contents else b
              for b in message["content"]]
    if not newest:
        blocks = [{"type": "text", "text": IMAGE} if b.get("type") == "image" else b
                  for b in blocks]
    return {**message, "content": blocks}


def make_oracle(scenario: str) -> Oracle:
    """The oracle for the scenario named ``scenario`` (``--layer ctxlab.oracle:make_oracle
    --set scenario=NAME``)."""
    return Oracle(scenarios.load(scenario))

