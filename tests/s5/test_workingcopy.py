"""The band's working copies kept up to date (``ctxlab.workingcopy``) are the plain
``edited_reads``'s, in the same order, turn after turn: calls appended, a file read again or
edited, a history cut short or begun again."""

from __future__ import annotations

import random

from s5_pipeline.reads import edited_reads

from ctxlab.workingcopy import EditedReads


def test_the_working_copies_are_the_plain_ones() -> None:
    rng = random.Random(4)
    memory = EditedReads()
    uses: list[dict] = []
    answers = 0
    for step in range(400):
        edit = rng.randrange(10)
        if edit < 7:  # new calls: reads, edits and others, of a few files
            uses = uses + [{"type": "tool_use", "id": f"toolu_{step}_{k}",
                            "name": rng.choice(["read_file", "read_file", "edit_file",
                                                "run_command"]),
                            "input": {"path": f"src/f{rng.randrange(6)}.py"}}
                           for k in range(rng.randrange(1, 3))]
        elif edit < 9:  # a summary: the calls begin again
            uses = uses[len(uses) // 2:]
        else:  # another session, or the same calls as equal copies
            uses = [dict(u) for u in uses] if rng.random() < 0.5 else uses[:2]
        answer = memory(uses)
        assert answer == edited_reads(uses), step
        answers += bool(answer)
    assert answers > 200  # the seeded turns do edit files


def test_a_layer_made_incremental_keeps_them_with_the_memory() -> None:
    # imported here, not above: a test that switches implementations reloads the stages
    from s5_pipeline import make_layer
    from s5_pipeline.reads import edited_reads as plain

    layer = make_layer()
    assert isinstance(layer.edited_reads, EditedReads)
    assert type(layer).edited_reads is plain  # the plain function, for the learner
