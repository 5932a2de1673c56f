"""Reads of the history done once per message: the band's, kept together (issue 49).

Each of the band's reads (``s5_pipeline.reads``) answers with the concatenation of its
answers for each message. The history a layer is given grows at its end and, now and then,
has a few old messages replaced (a batch of clearing), so a memory of last call's history and
answers lets a turn read only what changed: the messages shared with last call's history (the
same objects, or equal ones) keep their part of each answer, a message replaced by another
whose parts have as many items as before is read in its place (otherwise everything from it
on is read again), and the new ones are read. A read whose items name their message by its
index (``indexed``: (index, value) pairs) reads each message alone, as message 0, and its
items are moved to the message's place. One read's items may be tallied (``found``, whose
tally answers ``named``): how many items hold each element, kept up to date as items come
and go. The band asks six reads before every request, of the same history: ``SharedReads``
keeps them together, so one comparison (at C speed) finds what changed and each changed
message is read by every read in turn; ``PerMessage`` is one read with a memory of its own.
As everywhere in the workbook, a message object edited in place is not seen: a layer replaces
a message, it does not edit it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection
from itertools import chain, compress, count
from operator import is_not
from typing import Any

from .permessage import OfLayer, of_layer

Messages = list[dict[str, Any]]
Read = Callable[[Messages], list[Any]]


class SharedReads:
    """``reads`` (name -> read of a history), each answered once per message (see the module
    docs) while ``key()`` (what they depend on besides the messages, the task's words) stays the
    same; ``indexed``: the reads whose items are (index of their message, value) pairs;
    ``tallied``: the read whose items' elements ``tally`` counts."""

    def __init__(self, reads: dict[str, Read], *, key: Callable[[], object],
                 indexed: Collection[str] = (), tallied: str | None = None) -> None:
        self.names = list(reads)
        self.reads = list(reads.values())
        self.indexed = [name in indexed for name in self.names]
        self.tallied = self.names.index(tallied) if tallied in reads else None
        self.key = key
        self._reset(None)

    def _reset(self, key: object) -> None:
        """Nothing read yet, for ``key``."""
        self.keyed = key
        self.given: Messages = []  # last call's history
        self.answers: list[list[Any]] = [[] for _ in self.reads]
        self.ends: list[list[int]] = [[] for _ in self.reads]  # where each message's part ends
        self.tally: Counter[Any] = Counter()

    def answer(self, read: int, messages: Messages) -> list[Any]:
        """Read number ``read``'s answer for ``messages`` (a copy: the caller may change it)."""
        self.sync(messages)
        return list(self.answers[read])

    def sync(self, messages: Messages) -> None:
        """Every answer brought up to date for ``messages``."""
        key = self.key()
        if key != self.keyed:
            self._reset(key)
        given = self.given
        if len(given) == len(messages) and messages == given:
            return  # last call's history (the same or equal messages)
        self.given = []  # a read that fails: the next call starts afresh
        shared = len(given)
        keep = shared if shared <= len(messages) and messages[:shared] == given else \
            self._patch(messages, given)
        self._cut(keep)
        for index in range(keep, len(messages)):
            for read, part in enumerate(self._parts(index, messages[index])):
                answer = self.answers[read]
                if read == self.tallied:
                    self.tally.update(chain.from_iterable(part))
                answer += part
                self.ends[read].append(len(answer))
        self.given = list(messages)

    def _parts(self, index: int, message: dict[str, Any]) -> list[list[Any]]:
        """Each read's answer for ``message`` at ``index`` in the history."""
        parts = []
        for read, indexed in zip(self.reads, self.indexed, strict=True):
            part = read([message])
            parts.append([(index, item) for _, item in part] if indexed else part)
        return parts

    def _patch(self, messages: Messages, given: Messages) -> int:
        """Up to where the answers hold for ``messages``: for each message of last call's
        history that is the same object (found at C speed) or an equal one; one replaced by
        another has its parts replaced in place, as long as each has as many items."""
        for index in compress(count(), map(is_not, messages, given)):
            if messages[index] == given[index]:
                continue
            parts = self._parts(index, messages[index])
            spans = [(ends[index - 1] if index else 0, ends[index]) for ends in self.ends]
            if any(len(part) != end - start
                   for part, (start, end) in zip(parts, spans, strict=True)):
                return index
            for read, (part, (start, end)) in enumerate(zip(parts, spans, strict=True)):
                self._put(read, start, end, part)
        return min(len(given), len(messages))

    def _cut(self, keep: int) -> None:
        """Every answer as it was for the first ``keep`` messages."""
        for read, ends in enumerate(self.ends):
            del ends[keep:]
            self._put(read, ends[-1] if ends else 0, len(self.answers[read]), [])

    def _put(self, read: int, start: int, end: int, part: list[Any]) -> None:
        """``answers[read][start:end] = part``, the tally kept."""
        answer = self.answers[read]
        if read == self.tallied:
            for element in chain.from_iterable(answer[start:end]):
                self.tally[element] -= 1
                if not self.tally[element]:
                    del self.tally[element]
            self.tally.update(chain.from_iterable(part))
        answer[start:end] = part


class ReadOf:
    """One read of a ``SharedReads``, called as the plain read is (``read(messages)``)."""

    def __init__(self, shared: SharedReads, read: int) -> None:
        self.shared, self.read = shared, read

    def __call__(self, messages: Messages) -> list[Any]:
        return self.shared.answer(self.read, messages)


class PerMessage(ReadOf):
    """One read with a memory of its own: a ``SharedReads`` of that read alone (``key``: what
    it depends on besides the messages; ``indexed``: its items are (index of their message,
    value) pairs)."""

    def __init__(self, read: Read, *, key: Callable[[], object] | None = None,
                 indexed: bool = False) -> None:
        super().__init__(SharedReads({"read": read}, key=key or _no_key,
                                     indexed=("read",) if indexed else ()), 0)


class TallyOf:
    """The tally of a ``SharedReads`` for a history (a copy: the caller may change it)."""

    def __init__(self, shared: SharedReads) -> None:
        self.shared = shared

    def __call__(self, messages: Messages) -> Counter[Any]:
        self.shared.sync(messages)
        return Counter(self.shared.tally)


READS = ("uses", "calls", "found", "results", "saved", "located")  # ``s5_pipeline.reads``
INDEXED = ("located",)  # the reads whose items are (index of their message, value)
TALLIES = {"named": "found"}  # a read that tallies the elements of another read's items


def _no_key() -> None:
    """The key of a read that depends on the messages alone."""


def _terms(layer: Any) -> object:
    """What the band's reads depend on besides the messages: the task's words."""
    return getattr(layer, "terms", None)


def remember_reads(layer: Any) -> None:
    """Give the band's reads that ``layer`` has (``READS``) one memory, keyed by the task's
    words (``layer.terms``), which some of them depend on; a read tallied by another
    (``TALLIES``) is answered by that read's tally."""
    names = [read for read in READS if hasattr(layer, read)]
    if not names:
        return
    tallies = {tally: read for tally, read in TALLIES.items()
               if hasattr(layer, tally) and read in names}
    shared = SharedReads({name: of_layer(layer, name) for name in names},
                         key=OfLayer(layer, _terms), indexed=INDEXED,
                         tallied=next(iter(tallies.values()), None))
    for read, name in enumerate(names):
        setattr(layer, name, ReadOf(shared, read))
    for tally in tallies:
        setattr(layer, tally, TallyOf(shared))
