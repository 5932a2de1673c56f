"""Sizing a replayed request: the reference tokenizer, corrected by the log's own usage (§9.5).

The log records, for most responses, the usage the API reported for the request that produced
it — the ground truth, system prompt and tool definitions included, which the log does not
hold. A layer changes only the messages. So a replayed request is sized as the messages the
layer kept, counted with the reference tokenizer as the simulator counts them (3 framing
tokens per message, the image rule, thinking of earlier turns dropped), plus the *overhead*:
what the recorded usage shows beyond the recorded messages by that count — the system prompt,
the tool definitions, and the gap between Claude's tokenizer and the reference one, which
grows with the conversation. Where a response has no usage, the last overhead seen is kept
(zero at first). Counts are cl100k_base, a stand-in for Claude's tokenizer
(``ctxlab.tokens.CAVEAT``).

A replay sizes the history before every request, so ``Sizer`` keeps running sums: a message
is counted once, a block a layer carried over into a new message too, and a request costs
what it adds. As in stage 5's ``incremental.py``, a message or block object edited in place
after it was counted is not seen: a layer replaces a message, it does not edit it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import compress, count
from operator import is_not
from typing import Any

from ctxlab.marks import same_content
from ctxlab.permessage import ByObject
from ctxlab.sim.render import MESSAGE_FRAMING, block_tokens

from .blocks import as_blocks

Message = dict[str, Any]
Same = Callable[[Message, Message], bool]  # ``same_content``, or a memo of it
THINKING = ("thinking", "redacted_thinking")


def _starts_turn(message: Message) -> bool:
    """Whether ``message`` starts a turn: a user message holding more than tool results."""
    return message["role"] == "user" and any(b.get("type") != "tool_result"
                                             for b in as_blocks(message["content"]))


def _turn_start(messages: list[Message]) -> int:
    """The last message starting a turn (``_starts_turn``): thinking before it is dropped."""
    return next((i for i in range(len(messages) - 1, -1, -1) if _starts_turn(messages[i])), 0)


def message_tokens(message: Message, *, drop_thinking: bool = False) -> int:
    """Reference tokens of one message: framing plus its blocks (images by the image rule)."""
    return MESSAGE_FRAMING + sum(block_tokens(b) for b in as_blocks(message["content"])
                                 if not (drop_thinking and b.get("type") in THINKING))


def count_messages(messages: list[Message], end: int | None = None) -> int:
    """Reference tokens of ``messages[:end]`` as one request carrying all of ``messages``."""
    start = _turn_start(messages)
    return sum(message_tokens(m, drop_thinking=i < start)
               for i, m in enumerate(messages[:end]))


def _counted(message: Message) -> tuple[int, int, bool]:
    """One message's tokens, its thinking tokens among them, and whether it starts a turn:
    ``message_tokens`` with and without thinking, in one pass over its blocks."""
    full = thinking = 0
    for block in as_blocks(message["content"]):
        tokens = block_tokens(block)
        full += tokens
        if block.get("type") in THINKING:
            thinking += tokens
    return MESSAGE_FRAMING + full, thinking, _starts_turn(message)


class Sizer:
    """``count_messages`` for a history that changes a little between requests: each message
    object is counted once, when it first appears (``known``, which sizers of histories
    holding the same objects may share), and the totals are running sums that a request
    moves by what it changed. What is left per request runs at C speed: finding the
    messages a layer replaced (other objects at the same places). Messages are matched by
    identity, not by equality: ``1`` and ``true`` are equal to Python but not the same text
    to a tokenizer; a message replaced by one that is the same but for its breakpoints
    (``marks.same_content``, which keeps ``1`` and ``true`` apart) keeps its count."""

    def __init__(self, known: ByObject | None = None, same: Same = same_content) -> None:
        self.messages: list[Message] = []
        self.full: list[int] = []  # per message: its tokens, thinking included
        self.thinking: list[int] = []  # per message: the thinking tokens among them
        self.starts: list[bool] = []  # per message: whether it starts a turn
        self.start = 0  # the last message starting a turn (``_turn_start``)
        self.whole = 0  # ``sum(self.full)``
        self.dropped = 0  # ``sum(self.thinking[:self.start])``: thinking of earlier turns
        self.known = ByObject() if known is None else known  # each message object counted once
        self.same = same

    @property
    def total(self) -> int:
        """``count_messages(messages)`` of the history last counted."""
        return self.whole - self.dropped

    def _update(self, messages: list[Message]) -> None:
        old, size = self.messages, len(messages)
        replaced = list(compress(count(), map(is_not, messages, old)))  # at C speed
        if not replaced and len(old) == size:
            return
        full, thinking, starts, start = self.full, self.thinking, self.starts, self.start
        if size < len(full):
            self.whole -= sum(full[size:])
            del full[size:], thinking[size:], starts[size:]
        same = self.same
        for i in replaced:
            if same(messages[i], old[i]):  # only its breakpoints moved: a breakpoint
                continue  # is no text, so its tokens are the ones counted (``block_text``)
            tokens, thought, starts[i] = self.known.get(messages[i], _counted)
            self.whole += tokens - full[i]
            if i < start:
                self.dropped += thought - thinking[i]
            full[i], thinking[i] = tokens, thought
        kept = len(full)
        for message in messages[kept:]:
            tokens, thought, starting = self.known.get(message, _counted)
            self.whole += tokens
            full.append(tokens)
            thinking.append(thought)
            starts.append(starting)
        self.known.forget(messages)
        self.messages = list(messages)
        if start < size and starts[start]:  # the turn still starts there, or later
            later = [i for i in replaced if i > start and starts[i]]
            fresh = starts[kept:]
            if True in fresh:
                later.append(size - 1 - fresh[::-1].index(True))
            if later:
                self.start = max(later)
                self.dropped += sum(thinking[start:self.start])
        else:  # its message replaced or cut: look again
            self.start = size - 1 - starts[::-1].index(True) if True in starts else 0
            self.dropped = sum(thinking[:self.start])

    def count(self, messages: list[Message], end: int | None = None) -> int:
        """``count_messages(messages, end)``."""
        self._update(messages)
        if end is None or end >= len(messages):
            return self.total
        return self.total - sum(self.full[end:]) + sum(self.thinking[end:self.start])


def usage_total(usage: dict[str, Any]) -> int:
    """The whole input of a recorded request: uncached plus cache reads plus cache writes."""
    return sum(int(usage.get(k) or 0) for k in ("input_tokens", "cache_read_input_tokens",
                                                 "cache_creation_input_tokens"))


def canonical(message: Message) -> str:
    """A message as comparable text; ``cache_control`` marks do not change what is cached."""
    blocks = [{k: v for k, v in b.items() if k != "cache_control"}
              for b in as_blocks(message["content"])]
    return message["role"] + json.dumps(blocks, sort_keys=True, ensure_ascii=False)


def same_text(first: Message, second: Message, same: Same = same_content) -> bool:
    """``canonical(first) == canonical(second)``, at a glance where it can
    (``marks.same_content``, or ``same``, a memo of it); any other pair is compared as text."""
    return same(first, second) or canonical(first) == canonical(second)


def shared_prefix(previous: list[Message], current: list[Message],
                  same: Same = same_content) -> int:
    """How many leading messages ``current`` has in common with ``previous`` (the R16 prefix).

    The same objects are skipped at C speed, and so are equal ones; only a message that
    differs (a moved cache mark, say) is compared block by block (``same_text``)."""
    for i in compress(count(), map(is_not, previous, current)):
        if previous[i] != current[i] and not same_text(previous[i], current[i], same):
            return i
    return min(len(previous), len(current))
