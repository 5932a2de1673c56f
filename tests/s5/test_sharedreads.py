"""The band's reads kept together (``ctxlab.sharedreads``) answer as the plain reads do, and
the tally of ``found`` counts as ``HistoryReads.named`` counts, under seeded edits as a
session makes them: a new round, a batch clearing old results, a message replaced by one
with more or fewer results, a round dropped, a history cut short, new task words. Each new
message is read once by each read, whatever the number of reads asked."""

from __future__ import annotations

import random
from collections import Counter
from itertools import chain
from typing import Any

import pytest
from s5_pipeline.microcompact import located_results, result_ids
from s5_pipeline.reads import calls, found_terms
from s5help import EDITS, read_rounds, seeded_edit

from ctxlab.sharedreads import ReadOf, SharedReads, TallyOf

Messages = list[dict[str, Any]]


def _shared(words: dict[str, frozenset[str]], read: list[int]) -> SharedReads:
    def found(messages: Messages) -> list[frozenset[str]]:
        read[0] += len(messages)
        return found_terms(messages, words["now"])

    return SharedReads({"calls": calls, "found": found, "results": result_ids,
                        "located": located_results}, key=lambda: words["now"],
                       indexed=("located",), tallied="found")


def test_the_shared_reads_are_the_plain_ones() -> None:
    rng = random.Random(7)
    words = {"now": frozenset({"owner", "team", "return"})}
    read = [0]
    shared = _shared(words, read)
    reads = {"calls": ReadOf(shared, 0), "found": ReadOf(shared, 1),
             "results": ReadOf(shared, 2), "located": ReadOf(shared, 3)}
    named = TallyOf(shared)
    history = read_rounds(6, 3)
    for step in range(250):
        edit = rng.randrange(EDITS + 2) - 1  # a new round twice as often; the last: new words
        if edit < EDITS:
            history = seeded_edit(history, max(edit, 0), rng, step, copies=3)
        else:
            words["now"] = frozenset(rng.sample(["owner", "team", "return", "part"], k=2))
        plain = {"calls": calls(history), "found": found_terms(history, words["now"]),
                 "results": result_ids(history), "located": located_results(history)}
        for name in rng.sample(sorted(reads), k=len(reads)):  # asked in any order
            assert reads[name](history) == plain[name], (step, name)
        assert named(history) == Counter(chain.from_iterable(plain["found"])), step
        assert all(n > 0 for n in shared.tally.values())


def test_a_new_round_is_read_once_whatever_is_asked() -> None:
    words = {"now": frozenset({"owner"})}
    read = [0]
    shared = _shared(words, read)
    history = read_rounds(20, 3)
    assert ReadOf(shared, 2)(history) == result_ids(history)
    read[0] = 0
    history = history + read_rounds(21, 3)[len(history):]
    for _ in range(3):
        for index in range(4):
            ReadOf(shared, index)(history)
        TallyOf(shared)(history)
    assert read[0] == 2  # the round's two messages, once


def test_a_read_that_fails_leaves_the_next_call_right() -> None:
    """A read that raises halfway through a call leaves no half-updated answer behind."""
    failing: dict[str, Any] = {"at": None}

    def located(messages: Messages) -> list[tuple[int, str]]:
        if messages and messages[0] is failing["at"]:
            raise ValueError("unreadable")
        return located_results(messages)

    shared = SharedReads({"results": result_ids, "located": located}, key=lambda: None,
                         indexed=("located",))
    history = read_rounds(10, 3)
    ReadOf(shared, 1)(history)
    edited = list(history)
    edited[2] = dict(edited[2], content=edited[2]["content"] * 2)  # one result more
    edited[8] = dict(edited[8])  # another object, read again after the change
    failing["at"] = edited[8]
    with pytest.raises(ValueError):
        ReadOf(shared, 0)(edited)
    failing["at"] = None
    assert ReadOf(shared, 1)(edited) == located_results(edited)
    assert ReadOf(shared, 0)(history) == result_ids(history)


def test_a_layer_made_incremental_reads_with_one_memory() -> None:
    # imported here, not above: a test that switches implementations reloads the stages
    from s5_pipeline import make_layer

    layer = make_layer()
    layer.terms = frozenset({"owner", "team"})
    history = read_rounds(12, 3)
    assert isinstance(layer.found, ReadOf) and isinstance(layer.named, TallyOf)
    assert len({id(getattr(layer, name).shared) for name in ("uses", "calls", "found",
                                                              "results", "saved", "located")}) == 1
    plain = type(layer).named(layer, history)
    assert layer.named(history) == plain and plain["owner"] == 12
    assert layer.located(history) == type(layer).located(layer, history)
