"""A read of the history that is the concatenation of its reads of each message, done once
per message (the band's reads, ``s5_pipeline.reads``; see ``ctxlab.incremental``).

The history a layer is given grows at its end and, now and then, has a few old messages
replaced (a batch of clearing). A read whose answer for a history is its answers for each
message, one after another, needs to read only what changed: the messages shared with last
call's history (the same objects, or equal ones) give their part of the answer whole, a
message replaced by another is read in its place, and the new ones are read. A read whose
items name their message by its index (``indexed``: (index, value) pairs) reads each message
alone, as message 0, and its items are moved to the message's place; the shared messages
keep theirs. As everywhere in the workbook, a message object edited in place is not seen: a layer
replaces a message, it does not edit it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from itertools import compress, count
from operator import is_not
from typing import Any

Messages = list[dict[str, Any]]


class ByObject:
    """One value per message object (the replay's sizes, a turn's estimate shares), computed
    once while that object is in the history: an entry keeps its message, so an id reused by
    a new object is never taken for the old one. ``forget`` drops the entries of messages no
    longer in the history, once they outnumber it."""

    def __init__(self) -> None:
        self.known: dict[int, tuple[dict[str, Any], Any]] = {}

    def get(self, message: dict[str, Any], compute: Callable[[dict[str, Any]], Any]) -> Any:
        """``compute(message)``, the first time this message object is asked for."""
        entry = self.known.get(id(message))
        if entry is None or entry[0] is not message:
            entry = self.known[id(message)] = (message, compute(message))
        return entry[1]

    def forget(self, messages: Messages) -> None:
        """Keep only the entries of ``messages``, when the others are many."""
        if len(self.known) > 2 * len(messages) + 64:
            self.known = {id(m): e for m in messages
                          if (e := self.known.get(id(m))) is not None and e[0] is m}


class PerMessage:
    """``read(messages)`` for a read whose answer is its answers for each message, in order,
    while ``key()`` (what the read depends on besides the messages, the task's words) stays
    the same; ``indexed``: the read's items are (index of their message, value) pairs. The
    answer for the messages shared with last call's history is kept: when that history is
    the start of this one (the same or equal objects, one C-level list comparison), only the
    new messages are read; otherwise a message replaced by another (a batch of clearing),
    whose answer has as many items as the one it replaces, is read in its place
    (``_patch``), and the rest message by message. Nothing is kept per message object: a
    turn's memory is last call's history and answer, so it holds no more objects than
    that answer does."""

    def __init__(self, read: Callable[[Messages], list[Any]], *,
                 key: Callable[[], object] | None = None, indexed: bool = False) -> None:
        self.read, self.key, self.indexed = read, key, indexed
        self.keyed: object = None
        self.given: Messages = []  # last call's history
        self.ends: list[int] = []  # where each of its messages' answers ends in ``answer``
        self.answer: list[Any] = []

    def __call__(self, messages: Messages) -> list[Any]:
        key = self.key() if self.key is not None else None
        if key != self.keyed:
            self.keyed, self.given = key, []
        given, self.given = self.given, []  # a read that fails: the next call starts afresh
        shared = len(given)
        keep = shared if shared <= len(messages) and messages[:shared] == given else \
            self._patch(messages, given)
        del self.ends[keep:]
        self._put(self.ends[-1] if self.ends else 0, len(self.answer), [])
        for index in range(keep, len(messages)):
            part = self._part(index, messages[index])
            self._put(len(self.answer), len(self.answer), part)
            self.ends.append(len(self.answer))
        self.given = list(messages)
        return list(self.answer)  # a copy: the caller may change it

    def _part(self, index: int, message: dict[str, Any]) -> list[Any]:
        """The answer for ``message`` at ``index`` in the history."""
        part = self.read([message])
        return [(index, item) for _, item in part] if self.indexed else part

    def _patch(self, messages: Messages, given: Messages) -> int:
        """Up to where ``answer`` holds for ``messages``: for each message of last call's
        history that is the same object (found at C speed) or an equal one; one replaced by
        another has its answer replaced in place, as long as the two have as many items (a
        cleared result stays one result, one call)."""
        for index in compress(count(), map(is_not, messages, given)):
            if messages[index] == given[index]:
                continue
            start, end = self.ends[index - 1] if index else 0, self.ends[index]
            part = self._part(index, messages[index])
            if len(part) != end - start:
                return index
            self._put(start, end, part)
        return min(len(given), len(messages))

    def _put(self, start: int, end: int, part: list[Any]) -> None:
        """``answer[start:end] = part``: every change of ``answer`` goes through here."""
        self.answer[start:end] = part


class OfLayer:
    """A call on ``layer`` made without holding it: ``function(layer, *args)`` through a weak
    reference. The layer holds what calls it (its reads, the incremental steps); a strong
    reference back would make a cycle that only the cyclic collector frees, and every memo
    the layer kept would wait for a full collection. Pickled with the layer (runs are)."""

    def __init__(self, layer: Any, function: Callable[..., Any]) -> None:
        self.layer, self.function = weakref.ref(layer), function

    def __call__(self, *args: Any) -> Any:
        return self.function(self.layer(), *args)

    def __reduce__(self) -> tuple[Any, ...]:
        return OfLayer, (self.layer(), self.function)


def of_layer(layer: Any, name: str) -> Callable[..., Any]:
    """``layer.name`` without a reference to ``layer`` when it is one of its methods
    (``OfLayer``); any other callable as it is."""
    found = getattr(layer, name)
    if getattr(found, "__self__", None) is layer and hasattr(found, "__func__"):
        return OfLayer(layer, found.__func__)
    return found
