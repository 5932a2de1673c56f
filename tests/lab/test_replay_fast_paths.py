"""The replay's shortcuts answer as the plain paths do (issue 49).

A replay checks and sizes the history before every request. ``Checker`` checks again only the
rounds holding a message that changed since its last pass, and ``Sizer`` counts each message
object once; each is set here beside the whole-history function it stands for (``violation``,
``count_messages``), on seeded histories that a layer's kinds of edits change between calls:
copies equal to the original, moved cache marks, cleared results, cuts at the start, in the
middle and at the end, a message split in two or doubled (same-role neighbours are merged by
the API, R3), roles swapped, empty text, a lost or renamed tool call, an edited thinking
block and a block of the wrong shape. ``same_text`` stands for comparing two messages as text
(``canonical``). Last, a finished replay is freed without the collector.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from ctxlab.marks import same_content
from ctxlab.replay.blocks import as_blocks
from ctxlab.replay.carry import removed
from ctxlab.replay.check import Checker, violation
from ctxlab.replay.measure import Sizer, canonical, count_messages, same_text, shared_prefix
from ctxlab.sim import thinking
from ctxlab.sim.content import block_key, key

MODEL = "claude-haiku-4-5"
Messages = list[dict[str, Any]]


def _round(rng: random.Random, n: int) -> Messages:
    """An assistant message (thinking now and then, text, 0–2 calls) and its results."""
    content: list[dict[str, Any]] = []
    if rng.random() < 0.4:
        block = {"type": "thinking", "thinking": f"plan {n} " * rng.randint(1, 9)}
        content.append(dict(block, signature=thinking.sign(block, message_id=f"m{n}", index=0,
                                                           count=1)))
    content.append({"type": "text", "text": f"step {n}: " + "word " * rng.randint(1, 30)})
    calls = [{"type": "tool_use", "id": f"toolu_{n}_{k}", "name": "Read",
              "input": {"file_path": f"src/{n}_{k}.py", "limit": rng.choice([1, 1.0, True])}}
             for k in range(rng.randint(0, 2))]
    results: list[dict[str, Any]] = [{"type": "tool_result", "tool_use_id": c["id"],
                                      "content": "line\n" * rng.randint(1, 40)} for c in calls]
    if not results or rng.random() < 0.15:
        results.append({"type": "text", "text": f"also {n}"})  # a turn starts here
    return [{"role": "assistant", "content": content + calls},
            {"role": "user", "content": results}]


def _edited(rng: random.Random, history: Messages, kinds: int = 14) -> Messages:
    """``history`` after one edit a layer might make (the first four keep to the rules)."""
    messages = list(history)
    i = rng.randrange(len(messages))
    message = copy.deepcopy(messages[i])
    blocks = message["content"]
    kind = rng.randrange(kinds)
    if kind == 0:  # an equal copy
        pass
    elif kind == 1:  # a cache mark put on, or taken off (a mark moved)
        if rng.random() < 0.5:
            blocks[-1]["cache_control"] = {"type": "ephemeral", "ttl": rng.choice(["5m", "1h"])}
        else:
            for block in blocks:
                block.pop("cache_control", None)
    elif kind == 13:  # a mark of the wrong shape, or on thinking (the schema's check)
        thought = [b for b in blocks if b["type"] == "thinking"]
        (thought or blocks)[0]["cache_control"] = {"type": "ephemeral"} if thought else \
            rng.choice([{"type": "persistent"}, {"type": "ephemeral", "ttl": "2h"}, "5m"])
    elif kind == 2:  # a result cleared
        for block in blocks:
            if block["type"] == "tool_result":
                block["content"] = "[cleared]"
    elif kind == 3:  # a message split in two of the same role (merged again by the API)
        if len(blocks) < 2:
            return messages
        cut = rng.randrange(1, len(blocks))
        messages[i:i + 1] = [dict(message, content=blocks[:cut]),
                             dict(message, content=blocks[cut:])]
        return messages
    elif kind == 12:  # a cut at the start or in the middle
        del messages[rng.randrange(len(messages)) if rng.random() < 0.7 else 0]
        return messages
    elif kind == 4:  # a cut at the end
        return messages[:rng.randint(1, len(messages))]
    elif kind == 5:  # a same-role neighbour
        messages.insert(i, message)
        return messages
    elif kind == 6:  # a role swapped
        message["role"] = "user" if message["role"] == "assistant" else "assistant"
    elif kind == 7:  # empty or blank text (R6)
        blocks.append({"type": "text", "text": rng.choice(["", "  "])})
    elif kind == 8:  # a call or result dropped (R7–R9)
        kept = [b for b in blocks if b["type"] not in ("tool_use", "tool_result")]
        message["content"] = kept or [{"type": "text", "text": "nothing left"}]
    elif kind == 9:  # a result renamed (R8)
        for block in blocks:
            if block["type"] == "tool_result":
                block["tool_use_id"] += "x"
    elif kind == 10:  # a thinking block edited (R14 on the latest assistant message)
        for block in blocks:
            if block["type"] == "thinking":
                block["thinking"] += " (shortened)"
    else:  # a block of the wrong shape (the schema's check)
        blocks.append({"type": "text"})
    messages[i] = message
    return messages


def histories(seed: int, steps: int = 70) -> list[Messages]:
    """What a replay hands its checks and counts: a history that grows round by round and
    is edited for good now and then (within the rules), and between calls is edited further
    (sometimes into breaking a rule) or taken back to as it was."""
    rng = random.Random(seed)
    base: Messages = [{"role": "user", "content": [{"type": "text", "text": "Fix the build."}]}]
    states = []
    for n in range(steps):
        if rng.random() < 0.6:
            base = base + _round(rng, n)
        if rng.random() < 0.4:
            base = _edited(rng, base, kinds=4)
        state = base
        for _ in range(rng.choice([0, 0, 1, 1, 2])):
            state = _edited(rng, state)
        states.append(state)
    return states


@pytest.mark.parametrize("seed", range(8))
def test_the_checker_answers_as_a_whole_check(seed: int) -> None:
    checker = Checker(model=MODEL)  # asked every step, or every second or third
    answers = [(checker(s), violation(s, model=MODEL)) for s in histories(seed)[::1 + seed % 3]]
    assert [mine for mine, _ in answers] == [whole for _, whole in answers]
    assert any(whole is None for _, whole in answers)
    assert any(whole is not None for _, whole in answers)


def test_the_checker_looks_only_at_the_rounds_that_changed() -> None:
    rng = random.Random(1)
    history: Messages = [{"role": "user", "content": [{"type": "text", "text": "Go."}]}]
    for n in range(30):
        history += _round(rng, n)
    checker = Checker(model=MODEL)
    assert checker(history) is None
    edited = list(history)
    edited[21] = dict(history[21], content=[{"type": "text", "text": "[cleared]"}])
    assert checker.spans(edited) == [(21, 23), (59, 61)]  # its round and the last one
    assert checker(edited) == violation(edited, model=MODEL)  # call 21 lost its results
    assert checker.spans(list(history)) is not None and checker.checked == []
    assert checker(history) is None and checker.spans(list(history)) == []


def test_a_breakpoint_taken_off_is_not_checked_again_but_one_put_on_is() -> None:
    """A layer moves its breakpoint every request: the message that loses it needs no new
    check (no rule asks for a breakpoint), the one that gets it does (a breakpoint can
    break one: on a thinking block, say)."""
    rng = random.Random(2)
    history: Messages = [{"role": "user", "content": [{"type": "text", "text": "Go."}]}]
    while len(history) < 40:
        history += _round(rng, len(history))
    k = next(i for i, m in enumerate(history)
             if m["content"][0]["type"] == "thinking" and 0 < i < len(history) - 2)
    marked = copy.deepcopy(history[k + 1])
    marked["content"][-1]["cache_control"] = {"type": "ephemeral"}
    checker = Checker(model=MODEL)
    assert checker([*history[:k + 1], marked, *history[k + 2:]]) is None
    assert checker.spans(history) == []  # only its breakpoint went
    assert checker(history) is None
    thought = copy.deepcopy(history[k])
    thought["content"][0]["cache_control"] = {"type": "ephemeral"}
    wrong = [*history[:k], thought, *history[k + 1:]]
    assert checker.spans(wrong) == [(k, k + 2), (len(history) - 2, len(history))]
    assert checker(wrong) == violation(wrong, model=MODEL) is not None


def test_a_result_cleared_to_text_is_not_checked_again_any_other_change_is() -> None:
    """A batch of clearing replaces old results' contents with text, which no rule looks
    at: their rounds need no new check. A result's content replaced by blocks, or any other
    field of its message changed (``true`` to ``1`` included), is checked again."""
    rng = random.Random(4)
    history: Messages = [{"role": "user", "content": [{"type": "text", "text": "Go."}]}]
    while len(history) < 40:
        history += _round(rng, len(history))
    k = next(i for i, m in enumerate(history) if 0 < i < 30 and m["role"] == "user"
             and m["content"][0]["type"] == "tool_result")
    result = dict(history[k]["content"][0], is_error=True)
    history[k] = dict(history[k], content=[result, *history[k]["content"][1:]])
    checker = Checker(model=MODEL)
    assert checker(history) is None

    def edited(**changes: Any) -> Messages:
        block = dict(history[k]["content"][0], **changes)
        return [*history[:k], dict(history[k], content=[block, *history[k]["content"][1:]]),
                *history[k + 1:]]

    assert checker.spans(edited(content="[cleared]")) == []
    last = (len(history) - 2, len(history))
    for wrong in (edited(content=[{"type": "text"}]),
                  edited(content="[cleared]", tool_use_id="toolu_other")):
        assert checker.spans(wrong) == [(k - 1, k + 1), last]
        assert checker(wrong) == violation(wrong, model=MODEL) is not None
        assert checker(history) is None
    flagged = edited(content="[cleared]", is_error=1)  # 1 is not true
    assert checker.spans(flagged) == [(k - 1, k + 1), last]


def test_a_role_swapped_takes_its_neighbours_rounds_along() -> None:
    """Two assistant messages in a row are one to the API (R3), so the results after them may
    answer either; once the first becomes a user message, the second is a round of its own
    and a result for the first is unexpected there (R8), in a round that did not change."""
    def use(n: str) -> dict[str, Any]:
        return {"type": "tool_use", "id": n, "name": "Read", "input": {}}

    history = [{"role": "user", "content": [{"type": "text", "text": "Go."}]},
               {"role": "assistant", "content": [use("x")]},
               {"role": "assistant", "content": [use("y")]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": n,
                                             "content": "ok"} for n in "xy"]},
               {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
               {"role": "user", "content": [{"type": "text", "text": "Thanks."}]}]
    swapped = [history[0], dict(history[1], role="user"), *history[2:]]
    checker = Checker(model=MODEL)
    assert checker(history) is None
    assert checker(swapped) == violation(swapped, model=MODEL) is not None


@pytest.mark.parametrize("seed", range(8))
def test_the_sizer_counts_as_the_whole_count(seed: int) -> None:
    sizer, rng = Sizer(), random.Random(seed)
    for state in histories(seed):
        end = rng.randint(0, len(state))
        assert sizer.count(state) == count_messages(state)
        assert sizer.count(state, end) == count_messages(state, end)


def _turn_moved(rng: random.Random, history: Messages) -> Messages:
    """``history`` with its last turn start taken away (its text dropped: thinking before
    it is no longer of an earlier turn) or a later result message made one (text added)."""
    starts = [i for i, m in enumerate(history) if m["role"] == "user" and any(
        b.get("type") != "tool_result" for b in as_blocks(m["content"]))]
    moved = list(history)
    if starts and rng.random() < 0.5:
        i = starts[-1]
        moved[i] = dict(history[i], content=[b for b in as_blocks(history[i]["content"])
                                             if b.get("type") == "tool_result"])
    else:
        later = [i for i, m in enumerate(history) if m["role"] == "user"
                 and i > (starts or [0])[-1]]
        if later:
            i = rng.choice(later)
            moved[i] = dict(history[i], content=[*as_blocks(history[i]["content"]),
                                                 {"type": "text", "text": "and now?"}])
    return moved


@pytest.mark.parametrize("seed", range(8))
def test_two_sizers_sharing_their_counts_count_as_the_whole_count(seed: int) -> None:
    """As a replay uses them: one for the history offered to the layer, one for what it
    kept, sharing one count per message object, with turn starts taken away and added."""
    from ctxlab.permessage import ByObject

    rng, known = random.Random(seed), ByObject()
    offered, kept = Sizer(known), Sizer(known)
    for state in histories(seed):
        for sizer, history in ((offered, state), (kept, _turn_moved(rng, state))):
            end = rng.randint(0, len(history))
            assert sizer.count(history) == count_messages(history)
            assert sizer.count(history, end) == count_messages(history, end)


def test_the_sizer_tells_true_from_one() -> None:
    """A copy that Python finds equal but the tokenizer does not is counted again."""
    call = {"type": "tool_use", "id": "t", "name": "Read", "input": {"limit": 1}}
    first = [{"role": "user", "content": "go"}, {"role": "assistant", "content": [call]}]
    second = [first[0], {"role": "assistant",
                         "content": [dict(call, input={"limit": True})]}]
    assert first == second and count_messages(first) != count_messages(second)
    sizer = Sizer()
    assert [sizer.count(first), sizer.count(second)] == [count_messages(first),
                                                         count_messages(second)]


@pytest.mark.parametrize("seed", range(4))
def test_the_shared_prefix_is_the_first_message_that_differs_as_text(seed: int) -> None:
    states = histories(seed)
    for previous, current in zip(states, states[1:], strict=False):
        plain = next((i for i in range(min(len(previous), len(current)))
                      if previous[i] != current[i] and not same_text(previous[i], current[i])),
                     min(len(previous), len(current)))
        assert shared_prefix(previous, current) == plain


def _removed_as_text(before: Messages, after: Messages) -> Messages:
    """``removed`` the plain way: every object ``after`` lacks, unless a new one is the same
    text."""
    fresh = {canonical(m) for m in after if all(m is not b for b in before)}
    return [m for m in before if all(m is not a for a in after) and canonical(m) not in fresh]


@pytest.mark.parametrize("seed", range(8))
def test_what_a_batch_removed_is_found_as_by_text(seed: int) -> None:
    """Between two states: marks moved, results cleared, messages split, cut, inserted,
    taken back to an earlier state; the same message held twice, or moved."""
    states = histories(seed)
    rng = random.Random(seed)
    for before, after in zip(states, states[1:], strict=False):
        if rng.random() < 0.2 and before:
            before = before + [before[0]]  # held twice
        if rng.random() < 0.2 and len(after) > 1:
            after = after[1:] + after[:1]  # moved
        assert [id(m) for m in removed(before, after)] == \
            [id(m) for m in _removed_as_text(before, after)]


CALL = {"type": "tool_use", "id": "t", "name": "Read", "input": {"path": "a.py", "limit": 1}}
PAIRS = [
    ({"role": "user", "content": "hi"}, {"role": "user", "content": [{"type": "text",
                                                                     "text": "hi"}]}),
    ({"role": "assistant", "content": [CALL]}, {"role": "assistant", "content": [dict(CALL)]}),
    ({"role": "assistant", "content": [CALL]},
     {"role": "assistant", "content": [dict(CALL, cache_control={"type": "ephemeral"})]}),
    ({"role": "assistant", "content": [CALL]},
     {"role": "assistant", "content": [dict(CALL, input={"limit": 1, "path": "a.py"})]}),
    ({"role": "assistant", "content": [CALL]},
     {"role": "assistant", "content": [dict(CALL, input={"path": "a.py", "limit": True})]}),
    ({"role": "assistant", "content": [CALL]},
     {"role": "assistant", "content": [dict(CALL, input={"path": "a.py", "limit": 1.0})]}),
    ({"role": "assistant", "content": [CALL]}, {"role": "user", "content": [CALL]}),
    ({"role": "assistant", "content": [CALL]}, {"role": "assistant", "content": [CALL, CALL]}),
    ({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]},
     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                   "content": [{"type": "text", "text": "x"}]}]}),
]


MESSAGE_PAIRS = [
    ({"role": "user", "content": "hi"}, {"role": "user", "content": "hi"}),
    ({"role": "user", "content": "hi"}, {"role": "user", "content": "hi", "id": 1}),
    ({"role": "user", "content": "hi", "id": 1}, {"role": "user", "content": "hi", "id": True}),
    ({"role": "user", "content": [CALL]}, {"role": "assistant", "content": [CALL]}),
    ({"content": [CALL], "role": "user"}, {"role": "user", "content": [CALL]}),
    ({"role": "user", "content": [CALL, "x"]}, {"role": "user", "content": [CALL, "x"]}),
    ({"role": "user", "content": [{"type": "text", "text": "a", "cache_control": None}]},
     {"role": "user", "content": [{"type": "text", "text": "a"}]}),
    ({"role": "user", "content": [{"type": "text", "text": "a"}]},
     {"role": "user", "content": [{"type": "text", "text": "a", "citations": None}]}),
    ({"role": "user", "content": [{"type": "text", "text": "a"}]},
     {"role": "user", "content": [{"text": "a", "type": "text"}]}),
    ({"role": 1, "content": "x"}, {"role": 1, "content": "x"}),
    ({"role": "user", "content": ["x"]}, {"role": "user", "content": "x"}),
    ({"role": "user", "content": [["x"]]}, {"role": "user", "content": [["x"]]}),
    ({"role": "user", "content": (CALL,)}, {"role": "user", "content": (CALL,)}),
]


@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_same_text_is_the_comparison_as_text(first, second) -> None:
    """Marks aside, key order aside, ``1`` apart from ``true`` and ``1.0``."""
    assert same_text(first, second) == (canonical(first) == canonical(second))
    assert same_text(second, first) == (canonical(first) == canonical(second))


def _same_by_keys(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """The plain way: a string role, the same fields with the same ``sim.content`` keys, and
    one string or blocks pairwise the same object or with the same key, marks off."""
    def keys(message: dict[str, Any]) -> list[Any]:
        return [(name, key(v)) for name, v in sorted(message.items()) if name != "content"]

    blocks, others = first["content"], second["content"]
    if type(first["role"]) is not str or keys(first) != keys(second) or \
            any(v is None for _, v in keys(first)) or type(blocks) is not type(others):
        return False
    if isinstance(blocks, str):
        return blocks == others
    return type(blocks) is list and len(blocks) == len(others) and all(
        a is b or block_key(a) == block_key(b) is not None
        for a, b in zip(blocks, others, strict=True))


@pytest.mark.parametrize(("first", "second"), [*PAIRS, *MESSAGE_PAIRS])
def test_same_content_is_the_comparison_of_keys(first, second) -> None:
    """Field by field, values shared by a marked copy not keyed: as the messages' keys."""
    for other in (second, {**second, "content": [
            dict(b, cache_control={"type": "ephemeral"}) if isinstance(b, dict) else b
            for b in as_blocks(second["content"])]}):
        assert same_content(first, other) == _same_by_keys(first, other)
        assert not same_content(first, other) or same_text(first, other)


def test_a_finished_replay_is_freed_without_the_collector(tmp_path) -> None:
    """Nothing of a replay waits in a reference cycle for the collector's next full pass
    (which walks every live object): a stage-1 replay is freed by reference counting."""
    import gc

    from ctxlab.replay import replay_file
    from ctxlab.replay.synthetic import synthetic_log

    log = synthetic_log(tmp_path / "log.jsonl", 12, seed=3)
    gc.collect()
    flags = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        replay_file(log, 1)
        gc.collect()
        ours = [repr(o)[:80] for o in gc.garbage
                if getattr(type(o), "__module__", "").startswith("ctxlab")
                or getattr(o, "__module__", None) and o.__module__.startswith("ctxlab")]
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()
    assert ours == []


@pytest.mark.parametrize("seed", range(6))
def test_the_same_content_memo_answers_as_same_content(seed: int) -> None:
    """As a replay asks it: each turn, every place of this history against the last two and
    across (the same message against other ones), some pairs again; answers as the plain
    function, and it holds only the pairs of this turn and the one before."""
    from ctxlab.marks import SameContentMemo

    rng, memo = random.Random(seed), SameContentMemo()
    states = histories(seed)
    for n, state in enumerate(states):
        memo.next_turn()
        asked = set()
        for before in states[max(0, n - 2):n + 1]:
            for i in range(min(len(state), len(before))):
                for other in (before[i], before[rng.randrange(len(before))]):
                    for _ in range(rng.choice([1, 2])):
                        assert memo(state[i], other) == same_content(state[i], other)
                        asked.add((id(state[i]), id(other)))
        assert set(memo.now) == asked and all(a is not None for a, _, _ in memo.now.values())


@pytest.mark.parametrize("seed", range(6))
def test_the_replay_parts_sharing_a_memo_answer_as_without(seed: int) -> None:
    """The sizers, the check and the shared prefix given one memo, as a replay gives it."""
    from ctxlab.marks import SameContentMemo

    memo = SameContentMemo()
    sizer, checker, previous = Sizer(same=memo), Checker(model=MODEL, same=memo), None
    for state in histories(seed):
        memo.next_turn()
        assert sizer.count(state) == count_messages(state)
        assert checker(state) == violation(state, model=MODEL)
        if previous is not None:
            assert shared_prefix(previous, state, memo) == shared_prefix(previous, state)
            assert removed(previous, state, memo) == removed(previous, state)
        previous = state
