"""The behaviour of one session, measured from its history (DESIGN §4; issue "calibrate").

Everything is read from the Messages API history that ``ctxlab.replay`` imports from a
session log (responses grouped by ``message.id``, re-logged copies dropped) plus the usage
each response recorded. What is measured, per session:

- ``output_tokens``: the ``output_tokens`` each response's usage records. Claude Code writes
  usage on every line of a response while it streams, so the last line of some responses still
  holds a partial figure (1 or 3 tokens for a reply of hundreds). A recorded figure below half
  the tokens of the response's own visible content (text, thinking, tool inputs, counted with
  the reference tokenizer) cannot be the response's final usage: it is counted as *partial*
  and left out;
- ``parallel``: tool_use blocks per response that has any, and ``batches`` the kind
  (``ctxlab.kinds``; ``other`` for a tool of no kind) of each such response's first call, in
  order: which tools an agent calls several at once, and when in the session;
- ``notes``: per tool result holding at least one new distinctive item (``items``), whether an
  item reappears in the agent's own text (text blocks, not thinking: the API drops thinking
  from later turns) before its next tool call, that is in the following responses up to the
  first tool_use of the next response that calls a tool;
- ``reads`` / ``rereads``: reads of a file (``kinds``) that brought its content, and those of
  a file already read with no write to it in between; a re-read is *in view* when no
  compaction came between the two reads (the earlier result is still in the request), else
  *after a compaction*. A read or a write counts when its result arrives, in the order the
  results come: a result marked ``is_error`` (no such file, a denied path, an edit whose text
  was not found) showed or changed nothing, so the read that retries an errored read is no
  re-read; nor does a call whose result the import had to make up (the session ended first).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..kinds import READ, WRITE, file_of, kind_of
from ..tokens import block_text, count_text
from .items import mentions, new_items

Message = dict[str, Any]
PARTIAL_SHARE = 0.5
"""A recorded output below this share of the visible content's tokens is a partial record."""


@dataclass
class Habits:
    """The raw counts of one session; ``calibrate.report`` pools them."""

    responses: int = 0
    output_tokens: list[int] = field(default_factory=list)
    partial_usage: int = 0
    parallel: list[int] = field(default_factory=list)
    batches: list[str] = field(default_factory=list)
    results_with_items: int = 0
    noted: int = 0
    reads: int = 0
    rereads: int = 0
    rereads_after_compaction: int = 0


def _blocks(message: Message) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _visible_tokens(message: Message) -> int:
    return sum(count_text(block_text(b)) for b in _blocks(message)
               if b.get("type") != "redacted_thinking")  # encrypted: its size is not its text


def _text_before_call(message: Message) -> tuple[str, bool]:
    """The text blocks of a response before its first tool_use, and whether it calls a tool."""
    said = []
    for block in _blocks(message):
        if block.get("type") == "tool_use":
            return "\n".join(said), True
        if block.get("type") == "text":
            said.append(str(block.get("text", "")))
    return "\n".join(said), False


def _said_next(messages: list[Message], start: int) -> str | None:
    """What the agent wrote from ``messages[start]`` on, up to its next tool call; None when
    no response follows."""
    said, replied = [], False
    for message in messages[start:]:
        if message["role"] != "assistant":
            continue
        replied = True
        text, calls = _text_before_call(message)
        said.append(text)
        if calls:
            break
    return "\n".join(said) if replied else None


def measure(messages: list[Message], usage: dict[int, dict[str, Any] | None],
            skip_results: frozenset[str] = frozenset(),
            compactions: frozenset[int] = frozenset()) -> Habits:
    """The habits of one history; ``usage`` maps assistant message index → recorded usage;
    results in ``skip_results`` (synthetic ones an import added) are not counted;
    ``compactions`` holds the index of the first message after each compaction."""
    habits = Habits()
    calls: dict[str, tuple[str, str]] = {}  # tool_use id → (name, input as text)
    earlier: list[str] = []
    read_since_write: dict[str, int] = {}  # path → compactions before its last read
    pending: dict[str, tuple[str, str]] = {}  # tool_use id → (kind, path) until its result
    epoch = 0
    for index, message in enumerate(messages):
        blocks = _blocks(message)
        epoch += index in compactions
        if message["role"] == "assistant":
            _response(habits, message, usage.get(index))
            for block in blocks:
                if block.get("type") == "text":
                    earlier.append(str(block.get("text", "")))
                elif block.get("type") == "tool_use":
                    raw = json.dumps(block.get("input") or {}, ensure_ascii=False)
                    calls[str(block.get("id"))] = (str(block.get("name")), raw)
                    earlier.append(raw)
                    _file_use(block, pending)
            continue
        fresh: list[str] = []
        for block in blocks:
            if block.get("type") == "text":
                fresh.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in calls:
                if block["tool_use_id"] in skip_results:
                    continue
                use = pending.pop(block["tool_use_id"], None)
                if use is not None and not block.get("is_error"):
                    _file_used(habits, use, read_since_write, epoch)
                wanted = new_items(block_text(block), calls[block["tool_use_id"]][1], earlier)
                if not wanted:
                    continue
                said = _said_next(messages, index + 1)
                if said is None:
                    continue
                habits.results_with_items += 1
                habits.noted += mentions(said, wanted)
        earlier += fresh
    return habits


def _response(habits: Habits, message: Message, usage: dict[str, Any] | None) -> None:
    habits.responses += 1
    calls = [b for b in _blocks(message) if b.get("type") == "tool_use"]
    if calls:
        habits.parallel.append(len(calls))
        habits.batches.append(kind_of(str(calls[0].get("name"))) or "other")
    out = (usage or {}).get("output_tokens")
    if isinstance(out, int) and not isinstance(out, bool):
        if out < PARTIAL_SHARE * _visible_tokens(message):
            habits.partial_usage += 1
        else:
            habits.output_tokens.append(out)


def _file_use(block: dict[str, Any], pending: dict[str, tuple[str, str]]) -> None:
    """A call of a response that reads or writes a file waits for its result."""
    name = str(block.get("name"))
    path = file_of(name, block.get("input"))
    if path is not None and kind_of(name) in (READ, WRITE):
        pending[str(block.get("id"))] = (str(kind_of(name)), path)


def _file_used(habits: Habits, use: tuple[str, str], read_since_write: dict[str, int],
               epoch: int) -> None:
    """A read that showed the file, or a write that changed it (``use``: kind, path)."""
    kind, path = use
    if kind == WRITE:
        read_since_write.pop(path, None)
        return
    habits.reads += 1
    if path in read_since_write:
        habits.rereads += 1
        habits.rereads_after_compaction += read_since_write[path] != epoch
    read_since_write[path] = epoch
