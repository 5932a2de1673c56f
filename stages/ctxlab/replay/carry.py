"""What a summary would have to carry when a layer takes messages out (guide §12.4, §10).

When a layer removes or rewrites part of the history, what it held is gone unless something
still in view carries it: the user's own words (their constraints decay first, §12.3) and the
files the work touched (the agent re-reads what it cannot see, §12.2). For each such
transformation this lists both, and which of them are no longer anywhere in the new history
verbatim — all of them after a plain truncation, none after a summary that carried them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from itertools import compress, count
from operator import is_not
from typing import Any

from ctxlab.kinds import PATH_FIELDS as PATH_KEYS
from ctxlab.marks import same_content
from ctxlab.tokens import block_text

from .blocks import as_blocks
from .measure import canonical

Message = dict[str, Any]
HEAD = 80


def tool_paths(block: dict[str, Any]) -> list[str]:
    """The file paths a ``tool_use`` block names (Claude Code's tools and the workbook's)."""
    tool_input = block.get("input") or {}
    return [tool_input[k] for k in PATH_KEYS if isinstance(tool_input.get(k), str)]


def user_texts(messages: list[Message]) -> list[str]:
    """The text blocks of the user messages, oldest first (tool results are not user text)."""
    return [b["text"] for m in messages if m["role"] == "user" for b in as_blocks(m["content"])
            if b.get("type") == "text" and b.get("text")]


def touched_files(messages: list[Message]) -> list[str]:
    """Every path the assistant's tool calls named, first mention first."""
    return list(dict.fromkeys(p for m in messages if m["role"] == "assistant"
                              for b in as_blocks(m["content"]) if b.get("type") == "tool_use"
                              for p in tool_paths(b)))


@dataclass
class Carry:
    """One transformation that took messages out of the history, and what they held."""

    turn: int
    layers: list[str]
    messages_removed: int
    user_messages: int
    files: list[str]
    lost_user_messages: list[str]  # the first characters of each
    lost_files: list[str]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def removed(before: list[Message], after: list[Message],
            same: Callable[[Message, Message], bool] = same_content) -> list[Message]:
    """The messages of ``before`` that ``after`` no longer holds (the same object, or equal
    but for a cache mark, which moves every turn) — that is, equal as text (``canonical``)
    to none of the messages new in ``after``.

    Only the places where the two lists hold other objects (found at C speed), and their
    tails, can hold a message one of them lacks; a message of ``before`` whose place in
    ``after`` went to a new one that differs only in its marks (``marks.same_content``) is
    held without writing either as text, and one is written as text only beside the new
    messages with its strings (two messages equal as text have the same ones): a batch
    costs what it replaced, not the history."""
    places = [*compress(count(), map(is_not, before, after)),
              *range(min(len(before), len(after)), max(len(before), len(after)))]
    before_ids, after_ids = set(map(id, before)), set(map(id, after))
    gone = [(i, before[i]) for i in places if i < len(before) and id(before[i]) not in after_ids
            and not (i < len(after) and id(after[i]) not in before_ids and
                     same(before[i], after[i]))]
    fresh = [after[i] for i in places if i < len(after) and id(after[i]) not in before_ids]
    if not gone or not fresh:
        return [m for _, m in gone]
    by_strings: dict[tuple[Any, ...], list[Message]] = {}
    for message in fresh:
        by_strings.setdefault(_strings(message), []).append(message)
    texts: dict[int, str] = {}  # the new messages written as text, by id
    lost = []
    for _, message in gone:
        alike = by_strings.get(_strings(message), ())
        if alike and canonical(message) in {
                texts.setdefault(id(m), canonical(m)) for m in alike}:
            continue
        lost.append(message)
    return lost


def _strings(message: Message) -> tuple[Any, ...]:
    """What two messages equal as text (``canonical``) share at a glance: the role and each
    block's string fields but its mark (strings are hashed once, and keep their type in
    JSON)."""
    return message["role"], tuple(frozenset((k, v) for k, v in b.items()
                                            if k != "cache_control" and isinstance(v, str))
                                  for b in as_blocks(message["content"]))


def what_to_carry(before: list[Message], after: list[Message], *, turn: int,
                  layers: list[str],
                  same: Callable[[Message, Message], bool] = same_content) -> Carry | None:
    """What the messages ``after`` dropped from ``before`` held; None when none were dropped.
    ``same`` is ``marks.same_content`` or a memo of it."""
    gone = removed(before, after, same)
    if not gone:
        return None
    said = list(dict.fromkeys(user_texts(gone)))
    files = touched_files(gone)
    seen = "\n".join(block_text(b) for m in after for b in as_blocks(m["content"])
                     if b.get("type") != "image") if said or files else ""
    return Carry(turn, layers, len(gone), len(said), files,
                 [t[:HEAD] for t in said if t not in seen], [f for f in files if f not in seen])
