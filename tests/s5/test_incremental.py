"""Stage 5's incremental turn (the bench's ``ctxlab.incremental`` around the pipeline): last
turn's work is reused only where it still holds.

Every check compares with the full functions run on the whole history — ``Ledger.apply``,
``estimate_tokens``, ``mark_newest`` — and counts the messages actually worked on, never time.
The graded ones: a ``mark_newest`` that works on the newest messages alone (5.4), and a
pipeline that, wrapped, sends what a fresh layer sends (5.5).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from s5_pipeline import Pipeline, estimate_tokens, mark_newest
from s5_pipeline.estimate import message_tokens, request_tokens
from s5_pipeline.ledger import Ledger

from ctxlab.incremental import incremental
from ctxlab.prepared import Prepared
from ctxlab.session import Session
from ctxlab.sim import Simulator, make_client
from ctxlab.tools import definitions

Messages = list[dict[str, Any]]
SYSTEM = [{"type": "text", "text": "Be careful."}]


def _round(n: int, size: int = 200) -> Messages:
    """One API round: the assistant calls a tool, the user message carries its result."""
    return [{"role": "assistant", "content": [
                {"type": "text", "text": f"Printing part {n}."},
                {"type": "tool_use", "id": f"toolu_{n}", "name": "run_command",
                 "input": {"command": f"cat src/part_{n}.py"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n}",
                 "content": f"def part_{n}():\n    return {n}\n" * size}]}]


def _history(rounds: int) -> Messages:
    return [{"role": "user", "content": "the task"}] + [
        m for n in range(rounds) for m in _round(n)]


class _Counting(Ledger):
    """A ledger that notes how many messages each ``apply`` was given."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.given: list[int] = []

    def apply(self, messages: Messages) -> Messages:
        self.given.append(len(messages))
        return super().apply(messages)


def _incremental() -> Prepared:
    """Incremental versions of stage 5's full functions, as ``incremental`` builds them."""
    return Prepared(lambda messages, ledger: ledger.apply(messages), mark_newest,
                    share=message_tokens, total=request_tokens)


def _check(prepared: Prepared, ledger: Ledger, messages: Messages) -> Messages:
    """``prepared.apply`` and ``estimate`` agree with the full functions; returns the applied."""
    applied = prepared.apply(messages, ledger)
    assert applied == Ledger.apply(ledger, messages)
    assert prepared.estimate(applied) == estimate_tokens(applied)
    return applied


def test_a_normal_turn_works_only_on_the_new_messages(tmp_path: Path) -> None:
    ledger, prepared = _Counting(tmp_path), _incremental()
    history = _check(prepared, ledger, _history(30))
    assert ledger.given == [61]  # the first turn does it all
    for n in range(30, 40):
        assistant, user = _round(n)
        if n % 3 == 0:  # as ``admit`` does: an offloaded result, its decision frozen
            preview = f"[part {n} saved to disk]"
            ledger.record(f"toolu_{n}", preview, "offload")
            user["content"][0]["content"] = preview
        before = len(ledger.given)
        history = _check(prepared, ledger, history + [assistant, user])
        assert sum(ledger.given[before:]) == 2  # the new round (last turn's newest is kept:
        # only its breakpoint moves on)


def test_decisions_already_in_place_are_shared_not_copied(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path)
    history = _history(3)
    ledger.record("toolu_0", "[cleared]", "microcompact")
    applied = ledger.apply(history)
    assert applied[2] is not history[2] and applied[2]["content"][0]["content"] == "[cleared]"
    again = ledger.apply(applied)
    assert again == applied and all(a is b for a, b in zip(again, applied, strict=True))


def _replaced(messages: Messages) -> Messages:
    changed = list(messages)
    changed[-5] = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_7", "content": "another result"}]}
    return changed


def _removed(messages: Messages) -> Messages:
    return messages[:-7] + messages[-5:]


def _inserted(messages: Messages) -> Messages:
    note = {"role": "user", "content": [{"type": "text", "text": "a note"}]}
    return messages[:-5] + [note] + messages[-5:]


def _reordered(messages: Messages) -> Messages:
    changed = list(messages)
    changed[2], changed[4] = changed[4], changed[2]
    return changed


def _far_back(messages: Messages) -> Messages:
    changed = list(messages)
    changed[1] = copy.deepcopy(changed[1])
    changed[1]["content"][0]["text"] = "Printing something else."
    return changed


@pytest.mark.parametrize("change", [_replaced, _removed, _inserted, _reordered, _far_back])
def test_a_changed_prefix_is_detected_and_done_again(tmp_path: Path, change: Any) -> None:
    ledger, prepared = _Counting(tmp_path), _incremental()
    history = _check(prepared, ledger, _history(10))
    changed = change(history)
    before = len(ledger.given)
    _check(prepared, ledger, changed + _round(10))
    differ = sum(a != b for a, b in zip(changed, history, strict=False))
    assert differ > 0  # each message that differs, done again alone, and the new round
    assert sum(ledger.given[before:]) == differ + len(changed) + 2 - min(
        len(changed), len(history))  # and what is new at the end


def test_a_list_cut_short_keeps_what_it_still_shares(tmp_path: Path) -> None:
    ledger, prepared = _Counting(tmp_path), _incremental()
    history = _check(prepared, ledger, _history(10))
    before = len(ledger.given)
    _check(prepared, ledger, history[:-2])
    assert sum(ledger.given[before:]) == 0  # every message it keeps was done last turn


def test_equal_copies_count_as_unchanged(tmp_path: Path) -> None:
    ledger, prepared = _Counting(tmp_path), _incremental()
    history = _check(prepared, ledger, _history(10))
    before = len(ledger.given)
    _check(prepared, ledger, copy.deepcopy(history) + _round(10))
    assert sum(ledger.given[before:]) == 2  # the new round


def test_a_new_decision_on_an_old_result_is_applied(tmp_path: Path) -> None:
    ledger, prepared = _Counting(tmp_path), _incremental()
    history = _check(prepared, ledger, _history(10))
    ledger.record("toolu_2", "[cleared by hand]", "microcompact")
    before = len(ledger.given)
    applied = _check(prepared, ledger, history + _round(10))
    assert applied[6]["content"][0]["content"] == "[cleared by hand]"
    assert ledger.given[before:] == [1, 2]  # the message holding it, then the new round


def test_another_ledger_starts_afresh(tmp_path: Path) -> None:
    prepared = _incremental()
    history = _check(prepared, Ledger(tmp_path), _history(10))
    other = _Counting(tmp_path)
    _check(prepared, other, history + _round(10))
    assert other.given == [len(history) + 2]


@pytest.mark.exercise("5.4")
def test_marking_matches_mark_newest_and_shares_the_old_messages(tmp_path: Path) -> None:
    ledger, prepared = _Counting(tmp_path), _incremental()
    sent = prepared.mark(prepared.apply(_history(10), ledger))
    for n in range(10, 20):
        history = sent + _round(n)  # the loop appends to what was sent
        before = len(ledger.given)
        applied = prepared.apply(history, ledger)
        marked = prepared.mark(applied)
        assert marked == mark_newest(applied) == mark_newest(Ledger.apply(ledger, history))
        assert all(a is b for a, b in zip(marked[:-3], sent[:-3], strict=False))
        if n > 10:  # the first turn turned the task's text into a block: all of it again
            assert sum(ledger.given[before:]) == 2  # the round: the breakpoint's old place
            # comes back with its breakpoint, and is only marked again
        sent = marked


@pytest.mark.exercise("5.4")
def test_a_rewritten_history_is_marked_whole_and_starts_afresh(tmp_path: Path) -> None:
    ledger, prepared = _Counting(tmp_path), _incremental()
    applied = prepared.apply(_history(10), ledger)
    prepared.mark(applied)
    rewritten = applied[:1] + applied[-4:]  # what a layer returns: another list
    assert prepared.mark(rewritten) == mark_newest(rewritten)
    prepared.apply(rewritten + _round(10), ledger)
    assert ledger.given[-1] == len(rewritten) + 2


def _session(root: Path, sim: Simulator) -> Session:
    return Session(make_client(sim), "claude-haiku-4-5", list(SYSTEM), definitions(), root,
                   now=lambda: sim.clock.now)


@pytest.mark.exercise("5.5")
def test_prepare_sends_what_a_fresh_layer_would_send(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    applied: list[int] = []
    full = Ledger.apply
    monkeypatch.setattr(Ledger, "apply", lambda self, m: applied.append(len(m)) or full(self, m))
    sim = Simulator()
    session = _session(tmp_path, sim)
    layer = incremental(Pipeline(summarize=lambda messages, s: messages, per_result=5_000,
                                 band=False))  # offload alone: no batch below the trigger
    history = layer.prepare(_history(20), session)
    for n in range(20, 30):
        assistant, user = _round(n, size=300 if n % 2 else 20)  # every other one offloaded
        session.tool_names[f"toolu_{n}"] = "run_command"
        user["content"] = layer.admit(user["content"], session)
        before = len(applied)
        history = layer.prepare(history + [assistant, user], session)
        turn = applied[before:]
        fresh = Pipeline(summarize=lambda messages, s: messages, per_result=5_000,
                         band=False)  # not wrapped
        assert fresh.prepare(list(history), _session(tmp_path, sim)) == history
        if n > 20:  # this layer's turn: the round (the breakpoint's places only marked)
            assert sum(turn) == 2
    assert {e["layer"] for e in session.events} == {"offload"}  # no other layer ran


@pytest.mark.exercise("5.5")
@pytest.mark.parametrize("band", [True, False])
def test_the_wrapped_pipeline_sends_and_reports_what_the_plain_one_does(tmp_path: Path,
                                                                        band: bool) -> None:
    """Turn after turn through every cheap layer and the summary (without the band's batches,
    which keep it under the trigger) or through the batches: the wrapper changes only the
    cost, never a request or an event."""
    runs = []
    for name, wrap in (("plain", lambda layer: layer), ("incremental", incremental)):
        sim = Simulator()
        session = Session(make_client(sim), "ctxlab-sim-32k", list(SYSTEM), definitions(),
                          tmp_path / name, now=lambda sim=sim: sim.clock.now)
        layer = wrap(Pipeline(summarize=lambda messages, s: messages[:1] + messages[-4:],
                              keep_first=1, keep_last=12, keep_results=3, band=band))
        sent = layer.prepare(_history(2), session)
        requests = [sent]
        for n in range(2, 40):
            assistant, user = _round(n, size=450 if n >= 33 else 200)  # at last too big to clear
            session.tool_names[f"toolu_{n}"] = "run_command"
            user["content"] = layer.admit(user["content"], session)
            sent = layer.prepare(sent + [assistant, user], session)
            requests.append(sent)
        runs.append((requests, session.events))
    (plain, plain_events), (wrapped, wrapped_events) = runs
    assert wrapped == plain and wrapped_events == plain_events
    layers = {e["layer"] for e in plain_events}
    assert {"snip", "microcompact", "summary"} <= layers if not band else "microcompact" in layers


@pytest.mark.exercise("5.4")
def test_a_loop_that_keeps_its_own_history_gets_one_breakpoint(tmp_path: Path) -> None:
    """A loop may append to its own history rather than to what was sent: last turn's newest
    message then comes back as it was, and its breakpoint must still move on."""
    ledger, prepared = _Counting(tmp_path), _incremental()
    history = _history(10)
    for n in range(10, 15):
        marked = prepared.mark(prepared.apply(history, ledger))
        applied = Ledger.apply(ledger, history)
        assert marked == mark_newest(applied)
        assert sum("cache_control" in b for m in marked for b in m["content"]
                   if isinstance(m["content"], list)) == 1
        history = history + _round(n)


def test_a_message_back_with_its_breakpoint_is_taken_from_last_turn(tmp_path: Path) -> None:
    """Last turn's newest message comes back from the loop with the breakpoint ``mark`` put
    on it: equal but for that mark (``same_content``), it keeps last turn's result, and
    what is marked is the full functions' answer; a change of its content is done again."""
    from ctxlab.marks import same_content

    ledger, prepared = _Counting(tmp_path), _incremental()
    sent = prepared.mark(prepared.apply(_history(4), ledger))  # the task's text made a block
    applied = prepared.apply(sent + _round(4), ledger)
    sent = prepared.mark(applied)
    assert sent[-1] != applied[-1] and same_content(sent[-1], applied[-1])
    history = sent + _round(5)
    before = len(ledger.given)
    again = prepared.apply(history, ledger)
    assert again[len(applied) - 1] is applied[-1] and sum(ledger.given[before:]) == 2
    assert prepared.mark(again) == mark_newest(Ledger.apply(ledger, history))
    edited = copy.deepcopy(sent[-1])
    edited["content"][0]["content"] = "another result"
    assert not same_content(edited, applied[-1])
    assert not same_content({**sent[-1], "role": "assistant"}, applied[-1])


def test_a_layer_made_incremental_is_freed_without_the_collector(tmp_path: Path) -> None:
    """What ``incremental`` and the band's memories attach to a layer call it through weak
    references (``permessage.OfLayer``): once the last reference goes, the layer and every
    memo it holds are freed at once, not at the collector's next full collection; and the
    layer still pickles and works after (shared runs are pickled)."""
    import gc
    import pickle
    import weakref

    from s5_pipeline import make_layer

    sim = Simulator()
    session = _session(tmp_path, sim)
    layer = make_layer()
    history = layer.prepare(_history(6), session)
    for n in range(6, 9):
        session.tool_names[f"toolu_{n}"] = "run_command"
        history = layer.prepare(history + _round(n), session)
    again = pickle.loads(pickle.dumps(layer))
    assert again.prepare(list(history), _session(tmp_path / "again", sim))
    gone = [weakref.ref(o) for o in (layer, layer.uses, layer.microcompact, again)]
    gc.disable()
    try:
        del layer, again
        assert all(ref() is None for ref in gone)
    finally:
        gc.enable()
