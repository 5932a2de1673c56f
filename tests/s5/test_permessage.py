"""The band's reads done once per message (``ctxlab.sharedreads``) and the estimate of a history
with a few messages replaced (``Prepared.estimate``): each is checked against the full
function on the whole history, and by counting the messages actually read, never by time."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from s5_pipeline import estimate_tokens, mark_newest
from s5_pipeline.estimate import message_tokens, request_tokens
from s5_pipeline.ledger import Ledger
from s5_pipeline.reads import calls, found_terms
from s5help import EDITS, read_rounds, seeded_edit

from ctxlab.prepared import Prepared
from ctxlab.sharedreads import PerMessage

Messages = list[dict[str, Any]]


class _Reads:
    """A read that counts the messages it is given."""

    def __init__(self, read: Any) -> None:
        self.read, self.seen = read, 0

    def __call__(self, messages: Messages) -> list[Any]:
        self.seen += len(messages)
        return self.read(messages)


def test_a_read_reads_only_the_messages_it_has_not_seen() -> None:
    counted = _Reads(calls)
    read = PerMessage(counted)
    history = read_rounds(30)
    assert read(history) == calls(history) and counted.seen == len(history)
    history += read_rounds(32)[len(history):]  # one more round
    assert read(history) == calls(history) and counted.seen == len(history)
    cleared = list(history)  # a batch replaces two old messages
    cleared[4] = dict(cleared[4], content=[dict(cleared[4]["content"][0], content="[cleared]")])
    cleared[8] = dict(cleared[8], content=[dict(cleared[8]["content"][0], content="[cleared]")])
    before = counted.seen
    assert read(cleared) == calls(cleared) and counted.seen == before + 2
    assert read(history[:10]) == calls(history[:10])  # a shorter history: its own answer


def test_a_read_that_depends_on_the_task_reads_again_when_the_task_changes() -> None:
    terms = {"words": frozenset({"owner"})}
    counted = _Reads(lambda messages: found_terms(messages, terms["words"]))
    read = PerMessage(counted, key=lambda: terms["words"])
    history = read_rounds(6)
    assert read(history) == found_terms(history, frozenset({"owner"}))
    terms["words"] = frozenset({"return"})
    assert read(history) == found_terms(history, frozenset({"return"}))
    assert counted.seen == 2 * len(history)


def test_an_estimate_with_a_few_messages_replaced_is_the_full_one(tmp_path: Path) -> None:
    prepared = Prepared(lambda messages, ledger: ledger.apply(messages), mark_newest,
                        share=message_tokens, total=request_tokens)
    applied = prepared.apply(read_rounds(40), Ledger(tmp_path))
    after = list(applied)
    for i in (2, 10, 30):
        after[i] = dict(after[i], content=[dict(after[i]["content"][0], content="[cleared]")])
    assert prepared.estimate(after) == estimate_tokens(after)
    assert prepared.estimate(after[:-1]) == estimate_tokens(after[:-1])  # another length
    assert prepared.estimate_part(applied, 10, 30) == estimate_tokens(applied[10:30])
    assert prepared.estimate_part(applied, 30) == estimate_tokens(applied[30:])
    assert prepared.estimate_part(applied, 5, 5) == 0


def test_a_batch_that_changed_only_results_is_not_checked_again(tmp_path: Path) -> None:
    """The API-rule check looks at roles and at calls and results by id and place: a batch
    that changed only results' text leaves nothing for it to find; any other change to the
    history is checked whole."""
    from ctxlab.batchcheck import check_changed

    prepared = Prepared(lambda messages, ledger: ledger.apply(messages), mark_newest,
                        share=message_tokens, total=request_tokens)
    applied = prepared.apply(read_rounds(10), Ledger(tmp_path))
    checked: list[int] = []

    def whole(messages: Messages) -> None:
        checked.append(len(messages))

    cleared = list(applied)
    cleared[2] = dict(cleared[2], content=[dict(cleared[2]["content"][0], content="[cleared]")])
    check_changed(whole, prepared, cleared)
    assert checked == []
    broken = list(applied)
    broken[2] = dict(broken[2], content=[])  # its call left without a result
    check_changed(whole, prepared, broken)
    renamed = list(applied)
    renamed[2] = dict(renamed[2], content=[dict(renamed[2]["content"][0], tool_use_id="x")])
    check_changed(whole, prepared, renamed)
    check_changed(whole, prepared, applied[:-2])  # another length: a layer cut it
    assert checked == [len(applied)] * 2 + [len(applied) - 2]


def test_an_indexed_read_moves_each_message_s_items_to_its_place() -> None:
    """``located_results`` names each result by the index of its message: read once per
    message as message 0, its items are moved to where the message is, and after a batch
    (old messages replaced) or a shorter history the answer is the full function's."""
    from s5_pipeline.microcompact import located_results

    counted = _Reads(located_results)
    read = PerMessage(counted, indexed=True)
    history = read_rounds(30)
    assert read(history) == located_results(history) and counted.seen == len(history)
    history += read_rounds(31)[len(history):]
    assert read(history) == located_results(history) and counted.seen == len(history)
    cleared = list(history)
    cleared[6] = dict(cleared[6], content=[dict(cleared[6]["content"][0], content="[cleared]")])
    before = counted.seen
    assert read(cleared) == located_results(cleared) and counted.seen == before + 1
    assert read(cleared[:9]) == located_results(cleared[:9])
    moved = cleared[:1] + cleared[3:]  # a round gone: the same messages at other places
    assert read(moved) == located_results(moved)


def test_reads_follow_any_edit_of_the_history() -> None:
    """Seeded edits as a session makes them — a new round, a batch replacing old messages, a
    message replaced by one with more or fewer results, a round dropped, a history cut
    short — and each time every read, plain and indexed, gives the full function's answer."""
    import random

    from s5_pipeline.constraints import block_texts
    from s5_pipeline.microcompact import located_results, result_ids

    rng = random.Random(11)
    reads = {"calls": (calls, False), "results": (result_ids, False),
             "located": (located_results, True), "block_texts": (block_texts, False)}
    memos = {name: PerMessage(read, indexed=indexed) for name, (read, indexed) in reads.items()}
    history = read_rounds(8)
    for step in range(200):
        history = seeded_edit(history, rng.randrange(EDITS), rng, step)
        for name, (read, _) in reads.items():
            assert memos[name](history) == read(history), (step, name)


def test_a_read_that_fails_leaves_the_next_call_right() -> None:
    """A read that raises halfway through a call (here after a message whose answer changed
    length, so the rest is being read again) leaves no half-updated answer behind: the next
    call gives the full function's answer."""
    from s5_pipeline.microcompact import located_results

    failing: dict[str, Any] = {"at": None}

    def read(messages: Messages) -> list[Any]:
        if messages and messages[0] is failing["at"]:
            raise ValueError("unreadable")
        return located_results(messages)

    memo = PerMessage(read, indexed=True)
    history = read_rounds(10)
    memo(history)
    edited = list(history)
    edited[2] = dict(edited[2], content=edited[2]["content"] * 2)  # one result more
    edited[8] = dict(edited[8])  # another object, read again after the change
    failing["at"] = edited[8]
    with pytest.raises(ValueError):
        memo(edited)
    failing["at"] = None
    assert memo(edited) == located_results(edited)
    assert memo(history) == located_results(history)


def test_the_user_s_texts_put_back_are_the_plain_ones(tmp_path: Path) -> None:
    """A layer made incremental looks for the user's texts (``UserTexts.shown``) in the
    messages new since its last look only, and puts back what the plain ``UserTexts`` puts
    back, under seeded turns: new rounds with a user's text, a batch clearing results, a
    text dropped or quoted inside a summary."""
    import random

    from s5_pipeline import make_layer
    from s5_pipeline.constraints import UserTexts

    rng = random.Random(5)
    texts = make_layer().user_texts
    counted = _Reads(type(texts).shown)
    texts.shown = PerMessage(counted)
    plain = UserTexts()
    history = read_rounds(2)
    for step in range(120):
        edit = rng.randrange(4)
        if edit == 0:
            history = history + read_rounds(3)[1:] + [
                {"role": "user", "content": [{"type": "text", "text": f"rule {step}"}]}]
        elif edit == 1 and len(history) > 3:  # a batch: an old result cleared
            history = list(history)
            i = rng.randrange(2, len(history) - 1)
            history[i] = dict(history[i], content=[{"type": "text", "text": f"[cut {step}]"}])
        elif edit == 2 and len(history) > 3:  # a summary quoting one text, or none
            quoted = rng.choice(plain.texts or ["nothing"])
            history = [{"role": "user", "content": f"summary: {quoted}"}] + history[-2:]
        for memory in (texts, plain):
            memory.remember(history)
        seen = counted.seen
        assert texts.reinject(history) == plain.reinject(history), step
        assert edit != 0 or step == 0 or counted.seen - seen <= 8, step


def test_a_copy_waiting_for_its_batch_is_estimated_once(tmp_path: Path) -> None:
    """The copies a batch would send (the band's look keeps them while they wait, turn after
    turn) are estimated once per copy, not once per turn: seeded turns of new rounds and
    copies, each estimate equal to the full one."""
    shares: list[int] = []

    def share(message: dict[str, Any]) -> float:
        shares.append(id(message))
        return message_tokens(message)

    rng = random.Random(5)
    prepared = Prepared(lambda messages, ledger: ledger.apply(messages), mark_newest,
                        share=share, total=request_tokens)
    ledger, copies = Ledger(tmp_path), {}
    for rounds in range(3, 40):
        applied = prepared.apply(read_rounds(rounds)[:2 * rounds - rng.randrange(2)], ledger)
        index = rng.randrange(2, len(applied), 2)
        copies.setdefault(index, dict(applied[index], content=[
            dict(applied[index]["content"][0], content=f"[cleared {index}]")]))
        waiting = [copies[i] for i in sorted(copies) if i < len(applied)]
        del shares[:]
        assert prepared.estimate(waiting) == estimate_tokens(waiting)
        after = [copies.get(i, m) for i, m in enumerate(applied)]
        assert prepared.estimate(after) == estimate_tokens(after)
        assert len(shares) <= 1  # only this turn's new copy
