"""Microcompact that does not look again at what it decided last turn (the band's look, issue 49).

Before every request below the trigger the band asks microcompact what a batch would clear
(``s5_pipeline.band``): it looks at every old result not cleared yet. Most of them it leaves
as they are, turn after turn (a result shorter than its placeholder would be), and the ones
it would clear wait, turn after turn, for a batch that repays. Whether a result is cleared,
and what it becomes, depends on its text, its tool, its saved place, its note (``after``) and
the task's words that tell results apart (``terms``) alone, so last turn's verdict on a
result holds while those do. ``Settled`` remembers both verdicts: the results it left (hands
them to microcompact with the exempt ones, which it never looks at) and the results it would
clear (the candidates: their new texts and the copy of their message). A message whose
candidates are all still looked at, with nothing new to look at beside them, is taken from
last turn as it was; the others are looked at. The same answer, and a turn looks only at the
results new to it.

What keeps a verdict: the message holding the result is the one of last call's history at
its place (the same or an equal message: its text is as it was), the same ``terms`` and notes.
A call's tool and its saved place follow from the call itself and never change. A message a
batch replaced has its results looked at again; after new terms or notes, or a history cut
short (a summary), every result is looked at again once. A microcompact that clears a result
``old_results`` does not name (a learner's own rule) gets its plain answer, nothing kept.
The workbook's own microcompact, which looks at each result ``old_results`` names on its own,
is handed only the results left to look at, as the only ones there are (``keep`` 0, none
cleared or exempt): it does not sort the whole history out again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from itertools import compress, count
from operator import is_not
from typing import Any

Messages = list[dict[str, Any]]
Microcompact = Callable[..., tuple[Messages, dict[str, str]]]
OldResults = Callable[[Messages, list[tuple[int, str]], int, Collection[str]], dict[str, int]]
Waiting = dict[int, tuple[dict[str, Any], dict[str, str]]]  # index -> (its copy, decisions)


class Settled:
    """``microcompact`` (the full function) with last turn's verdicts kept while they hold
    (see the module docs); ``old_results`` is the one that says which results it looks at."""

    def __init__(self, microcompact: Microcompact, old_results: OldResults) -> None:
        from s5_pipeline.microcompact import microcompact as workbook

        self.full, self.old_results = microcompact, old_results
        self.narrow = microcompact is workbook  # it looks at the results named, alone
        self.settled: dict[str, int] = {}  # the results it left as they were -> their message
        self.waiting: Waiting = {}  # the messages with results it would clear
        self.given: Messages = []  # the history of the last call
        self.seen: tuple[frozenset[str], dict[str, str]] = (frozenset(), {})  # terms, notes

    def __call__(self, messages: Messages, tool_names: Mapping[str, str], keep: int, *,
                 terms: Collection[str] = (), saved_at: Any = None,
                 cleared: Collection[str] = (), exempt: Collection[str] = (),
                 after: Mapping[str, str] | None = None,
                 located: list[tuple[int, str]] | None = None,
                 ) -> tuple[Messages, dict[str, str]]:
        seen = (frozenset(terms), dict(after or {}))
        settled, waiting = self._still(messages, seen)
        self.given, self.settled, self.waiting = [], {}, {}  # a call that fails: afresh
        if located is None:  # no places to remember them by
            return self.full(messages, tool_names, keep, terms=terms, saved_at=saved_at,
                             cleared=cleared, exempt=exempt, after=after)
        looked = self.old_results(messages, located, keep, set(cleared) | set(exempt))
        waiting, known = _kept(waiting, looked, settled)
        if self.narrow:  # the results left to look at, named as the only ones there are
            # (none newest, cleared or exempt): it looks at them and at nothing else
            out, decisions = self.full(messages, tool_names, 0, terms=terms, saved_at=saved_at,
                                       after=after, located=[
                                           (index, ident) for ident, index in looked.items()
                                           if ident not in known])
        else:
            skipped = set(exempt).union(settled, *(d for _, d in waiting.values()))
            out, decisions = self.full(messages, tool_names, keep, terms=terms,
                                       saved_at=saved_at, cleared=cleared, exempt=skipped,
                                       after=after, located=located)
        if not decisions.keys() <= looked.keys():  # a look that clears what ``old_results``
            # does not name (a learner's own rule): its plain answer, nothing remembered
            return self.full(messages, tool_names, keep, terms=terms, saved_at=saved_at,
                             cleared=cleared, exempt=exempt, after=after, located=located)
        by_message: dict[int, dict[str, str]] = {}
        for ident, text in decisions.items():
            by_message.setdefault(looked[ident], {})[ident] = text
        if waiting:
            out = list(out)
            for index, (copy, kept) in waiting.items():
                out[index], by_message[index] = copy, kept
            decisions = {ident: text for index in sorted(by_message)
                         for ident, text in by_message[index].items()}
        settled.update((ident, looked[ident])  # the results new to it that it left
                       for ident in looked.keys() - settled.keys() - decisions.keys())
        self.settled, self.seen, self.given = settled, seen, list(messages)
        self.waiting = {index: (out[index], kept) for index, kept in by_message.items()}
        return out, decisions

    def _still(self, messages: Messages, seen: tuple[frozenset[str], dict[str, str]],
               ) -> tuple[dict[str, int], Waiting]:
        """Last call's verdicts that still hold for ``messages``: none when the terms or notes
        changed or the history is shorter than last call's; else those of the messages that
        are the same (or equal) at their place."""
        given = self.given
        if seen != self.seen or len(given) > len(messages):
            return {}, {}
        changed = {index for index in compress(count(), map(is_not, messages, given))
                   if messages[index] != given[index]}
        if not changed:
            return self.settled, self.waiting
        return ({ident: index for ident, index in self.settled.items() if index not in changed},
                {index: w for index, w in self.waiting.items() if index not in changed})


def _kept(waiting: Waiting, looked: dict[str, int], settled: dict[str, int],
          ) -> tuple[Waiting, set[str]]:
    """The messages of ``waiting`` that are as they were: every result they would clear is
    still looked at (``looked``: not cleared, not exempt, not among the newest), and every
    result looked at in them was looked at before (left, ``settled``, or to clear); and the
    results known after it (``settled`` and those the kept messages would clear), worked out
    from the ones known before it by taking off those of the messages it dropped."""
    known = settled.keys() | {ident for _, kept in waiting.values() for ident in kept}
    fresh = {looked[ident] for ident in looked.keys() - known}
    kept = {index: w for index, w in waiting.items() if index not in fresh
            and all(looked.get(ident) == index for ident in w[1])}
    if len(kept) < len(waiting):
        still = {ident for _, decided in kept.values() for ident in decided}
        known -= {ident for index, (_, decided) in waiting.items() if index not in kept
                  for ident in decided} - settled.keys() - still
    return kept, known


def settle(layer: Any) -> None:
    """Give ``layer``'s look (``layer.microcompact``, when it has one) a ``Settled`` memory."""
    from s5_pipeline.microcompact import old_results

    if callable(getattr(layer, "microcompact", None)):
        layer.microcompact = Settled(layer.microcompact, old_results)
