"""Microcompact that does not look again at what it left as it was (the band's look, issue 49).

Before every request below the trigger the band asks microcompact what a batch would clear
(``s5_pipeline.band``): it looks at every old result not cleared yet. Most of those it leaves
as they are, turn after turn: a result shorter than its placeholder would be, whose text,
tool, saved place and note stay what they were. Whether a result is cleared depends on those
and on the task's words that tell results apart (``terms``) alone, so a result it left once
is left again while they hold. ``Settled`` remembers those results and hands them to
microcompact with the exempt ones, which it never looks at: the same answer, and a turn
looks only at the results that are new to it.

What keeps a result settled: the history given starts with last call's (the same or equal
messages: a result's text is as it was), the same ``terms`` and notes (``after``). A call's
tool and its saved place follow from the call itself and never change. Anything else (a
batch that replaced messages, a summary, new terms or notes) and every result is looked at
again once.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

Messages = list[dict[str, Any]]
Microcompact = Callable[..., tuple[Messages, dict[str, str]]]
OldResults = Callable[[Messages, list[tuple[int, str]], int, Collection[str]], dict[str, int]]


class Settled:
    """``microcompact`` (the full function) with the results it left as they were skipped
    while they stay so (see the module docs); ``old_results`` is the one that says which
    results it looks at."""

    def __init__(self, microcompact: Microcompact, old_results: OldResults) -> None:
        self.full, self.old_results = microcompact, old_results
        self.settled: set[str] = set()
        self.given: Messages = []  # the history of the last call
        self.seen: tuple[frozenset[str], dict[str, str]] = (frozenset(), {})  # terms, notes

    def __call__(self, messages: Messages, tool_names: Mapping[str, str], keep: int, *,
                 terms: Collection[str] = (), saved_at: Any = None,
                 cleared: Collection[str] = (), exempt: Collection[str] = (),
                 after: Mapping[str, str] | None = None,
                 located: list[tuple[int, str]] | None = None,
                 ) -> tuple[Messages, dict[str, str]]:
        seen = (frozenset(terms), dict(after or {}))
        given, self.given = self.given, []  # a call that fails: the next starts afresh
        settled, self.settled = self.settled, set()
        if seen != self.seen or len(given) > len(messages) or messages[:len(given)] != given:
            settled = set()
        skipped = set(exempt) | settled
        out, decisions = self.full(messages, tool_names, keep, terms=terms, saved_at=saved_at,
                                   cleared=cleared, exempt=skipped, after=after,
                                   located=located)
        if located is not None:  # what it looked at, and left as it was
            looked = self.old_results(messages, located, keep, set(cleared) | skipped)
            settled.update(ident for ident in looked if ident not in decisions)
            self.settled, self.given, self.seen = settled, list(messages), seen
        return out, decisions


def settle(layer: Any) -> None:
    """Give ``layer``'s look (``layer.microcompact``, when it has one) a ``Settled`` memory."""
    from s5_pipeline.microcompact import old_results

    if callable(getattr(layer, "microcompact", None)):
        layer.microcompact = Settled(layer.microcompact, old_results)
