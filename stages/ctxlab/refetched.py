"""The band's count of fetches again, kept up to date (``s5_pipeline.refetch``, issue 49).

Before every request below the trigger the band asks which calls repeat a call whose result
microcompact cleared (``fetched_again``): the plain function reads every call and every
cleared id each turn. Between two turns the calls only grow at their end (the loop appends;
a batch changes results, not calls) and so do the cleared ids (the ledger records, it never
forgets), so ``FetchedAgain`` keeps last turn's answer and adds what the new calls and the
newly cleared ids change: a new call repeating a cleared one is fetched again; a newly
cleared call makes every other call asking the same a fetch again, and is none itself any
more. Calls or cleared ids that do not start with last turn's (a summary, another session)
are read whole again. The answer is the plain function's, in the same order.
"""

from __future__ import annotations

from collections.abc import Collection

Call = tuple[str, str]  # a call's id and what it asks (``s5_pipeline.reads.calls``)


class FetchedAgain:
    """``fetched_again(calls, cleared)`` that reads only the calls and cleared ids new since
    its last call (see the module docs)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        """Nothing read yet."""
        self.calls: list[Call] = []  # last call's calls
        self.cleared: list[str] = []  # and cleared ids, as given
        self.gone: set[str] = set()  # what the cleared calls ask
        self.gone_ids: set[str] = set()  # the cleared ids
        self.asking: dict[str, list[int]] = {}  # what a call asks -> the places of its calls
        self.places: dict[str, list[int]] = {}  # a call's id -> its places in the calls
        self.again: set[int] = set()  # the places of the calls fetched again

    def __call__(self, calls: list[Call], cleared: Collection[str]) -> list[str]:
        cleared = list(cleared)
        known, done = len(self.calls), len(self.cleared)
        if calls[:known] != self.calls or cleared[:done] != self.cleared:
            self._reset()  # read whole again
            known = done = 0
        self.calls, self.cleared = list(calls), cleared
        for place, (ident, call) in enumerate(calls[known:], start=known):
            self.asking.setdefault(call, []).append(place)
            self.places.setdefault(ident, []).append(place)
        for ident in cleared[done:]:
            self._clear(ident)
        self.again.update(place for place, (ident, call) in enumerate(calls[known:], start=known)
                          if call in self.gone and ident not in self.gone_ids)
        return [calls[place][0] for place in sorted(self.again)]

    def _clear(self, ident: str) -> None:
        """``ident`` cleared: no fetch again itself; every other call asking what it asked is."""
        self.gone_ids.add(ident)
        places = self.places.get(ident, [])
        self.again.difference_update(places)
        for call in {self.calls[place][1] for place in places} - self.gone:
            self.gone.add(call)
            self.again.update(place for place in self.asking[call]
                              if self.calls[place][0] not in self.gone_ids)
