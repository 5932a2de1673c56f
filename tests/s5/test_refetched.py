"""The band's count of fetches again kept up to date (``ctxlab.refetched``) gives the plain
``fetched_again``'s answer, in the same order, turn after turn: calls appended, results
cleared, a call repeated, a history cut short or begun again."""

from __future__ import annotations

import random

from s5_pipeline.refetch import fetched_again

from ctxlab.refetched import FetchedAgain


def test_the_calls_fetched_again_are_the_plain_ones() -> None:
    rng = random.Random(3)
    memory = FetchedAgain()
    calls: list[tuple[str, str]] = []
    cleared: list[str] = []
    answers = 0
    for step in range(400):
        edit = rng.randrange(10)
        if edit < 5:  # new calls, some asking what an earlier one asked
            calls = calls + [(f"toolu_{step}_{k}", f"read {rng.randrange(12)}")
                             for k in range(rng.randrange(1, 3))]
        elif edit < 8 and calls:  # a batch clears a few (a new call among them, at times)
            cleared = cleared + rng.sample([i for i, _ in calls], k=min(2, len(calls)))
        elif edit == 8:  # a summary: the calls begin again, the ledger keeps its ids
            calls = calls[len(calls) // 2:]
        else:  # another session
            calls, cleared = calls[:3], []
        answer = memory(calls, cleared)
        assert answer == fetched_again(calls, cleared), step
        answers += bool(answer)
    assert answers > 100  # the seeded turns do fetch again


def test_a_layer_made_incremental_counts_with_the_memory() -> None:
    # imported here, not above: a test that switches implementations reloads the stages
    from s5_pipeline import make_layer
    from s5_pipeline.refetch import fetched_again as plain

    layer = make_layer()
    assert isinstance(layer.fetched_again, FetchedAgain)
    assert type(layer).fetched_again is plain  # the plain function, for the learner
