"""Two messages that differ only by their breakpoints (``cache_control``, §6.4) say the same.

A breakpoint is the context layer's own mark on the history it sends: stage 5 takes every one
off before each request and sets its own (``mark_newest``, ``mark_anchor``), and neither the
estimate nor the band's reads look at it. The loop appends to what was sent, so last turn's
newest message comes back with the breakpoint on it; for the bench's incremental turn
(``ctxlab.incremental``) it is the message it was, and for the replay (``replay.measure``,
``replay.carry``) the same text.
"""

from __future__ import annotations

from typing import Any

from ctxlab.sim import content


def same_content(message: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether two messages are the same but for their breakpoints (``cache_control``): a
    breakpoint is the layer's own mark, which ``mark`` takes off every message and sets
    again, so the one message is done as the other was. The same is told at a glance: one
    role, the same other fields, and one string or blocks pairwise the same objects or with
    the same fields but the breakpoint, each value the same object or the same JSON
    (``sim.content``'s keys: ``1``, ``1.0`` and ``true`` are three texts to a tokenizer).
    False only says the glance could not tell (a value without a key, a NaN)."""
    if message.keys() != other.keys() or type(message["role"]) is not str or not all(
            _same_value(message[k], other[k]) for k in message if k != "content"):
        return False
    blocks, before = message["content"], other["content"]
    if type(blocks) is str:
        return blocks == before
    return type(blocks) is list and type(before) is list and len(blocks) == len(before) \
        and all(map(_same_block, blocks, before))


def _same_block(block: Any, other: Any) -> bool:
    """Whether two blocks are the same object, or have the same fields but the breakpoint,
    in the same order, with the same values (``_same_value``)."""
    if block is other:
        return True
    if type(block) is not dict or type(other) is not dict:
        return False
    names = [name for name in block if name != "cache_control"]
    return names == [name for name in other if name != "cache_control"] and all(
        _same_value(block[n], other[n]) for n in names)


def _same_value(value: Any, other: Any) -> bool:
    """``content.key(value) == content.key(other) is not None``, without keying a value
    that is the same object or that Python finds unequal."""
    return value is other or value == other and \
        content.key(value) == content.key(other) is not None


class SameContentMemo:
    """``same_content`` that answers a pair of message objects it was asked about this turn
    or the one before from memory. A replay asks about one pair several times (its sizers,
    its check, its carry, the next request's prefix): last turn's newest message, with its
    breakpoint and without. A message is replaced, never edited in place (as the sizers'
    ``ByObject`` counts it once), so one object pair has one answer. Each pair is held with
    its answer, so no id is reused while it is remembered; ``next_turn`` drops the pairs of
    the turn before last, so one replay holds the few pairs of two turns, and nothing
    outlives the replay that holds the memo."""

    def __init__(self) -> None:
        self.now: dict[tuple[int, int], tuple[Any, Any, bool]] = {}
        self.before: dict[tuple[int, int], tuple[Any, Any, bool]] = {}

    def __call__(self, message: dict[str, Any], other: dict[str, Any]) -> bool:
        """``same_content(message, other)``."""
        key = (id(message), id(other))
        known = self.now.get(key)
        if known is None:
            known = self.before.get(key) or (message, other, same_content(message, other))
            self.now[key] = known
        return known[2]

    def next_turn(self) -> None:
        """A new turn: forget the pairs not asked about in this one or the last."""
        self.before, self.now = self.now, {}
