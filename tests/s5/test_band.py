"""Below the trigger: microcompact's cache-aware batches (guide §4.6, §6.5, §6.8, §7.4, §10.2).

The mechanisms, one by one: §6.5's arithmetic with the chance of a fetch again, that chance
learned from the session (Laplace's rule), one more result kept per result fetched again, a
batch well below the band as soon as it repays, and a file changed on disk attached at once.
The helpers are the lab's own (no exercise); the tests through ``prepare`` run exercise 5.5.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from itertools import chain

import pytest
from s4_summarize.rebuild import CHANGED_NOTE, tool_uses
from s5_pipeline import Pipeline, band
from s5_pipeline.band import cacheable
from s5_pipeline.batch import Batch, refetch_chance
from s5_pipeline.changed import ChangedFiles
from s5_pipeline.reads import calls, found_terms, recovered, telling_terms
from s5_pipeline.refetch import fetched_again
from s5help import command_output, tool_history

from ctxlab import models
from ctxlab.session import Session
from ctxlab.sim import Simulator, make_client
from ctxlab.tools import definitions

PRICES = models.get("claude-haiku-4-5").prices  # $1 input, $0.10 read, $1.25 5-minute write


def _session(tmp_path, sim: Simulator) -> Session:
    return Session(make_client(sim), "claude-haiku-4-5", [{"type": "text", "text": "Be careful."}],
                   definitions(), tmp_path, now=lambda: sim.clock.now)


def _layer() -> Pipeline:
    return Pipeline(summarize=lambda messages, session: messages)


def _calls(session: Session, calls: list, size: int) -> list:
    """The task, then one round per call in ``calls``, each result ``size`` tokens or so."""
    history: list = [{"role": "user", "content": "the task"}]
    for n, (name, given) in enumerate(calls):
        history.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": given}]})
        history.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}",
             "content": command_output(n, size)}]})
        session.tool_names[f"toolu_{n}"] = name
    return history


def test_a_batch_repays_its_rewrite_and_the_chance_of_a_fetch_again() -> None:
    """§6.5: 20K freed of a 22K suffix: the 2K left is written (2,500) instead of 22K read
    (2,200), 300 extra, which one later request reading 20K less (2,000) repays. A fetch again
    at even odds writes the 20K once more (12,500 expected, §7.4): then seven requests are
    needed, not six."""
    batch = Batch(freed=20_000, suffix=22_000)
    assert batch.rewrite_cost(PRICES, cold=False) == pytest.approx(300)
    assert batch.repays(PRICES, requests=1, cold=False)
    assert not batch.repays(PRICES, requests=6, cold=False, refetch=0.5)
    assert batch.repays(PRICES, requests=7, cold=False, refetch=0.5)
    assert batch.rewrite_cost(PRICES, cold=True) < 0  # cold: the suffix is written anyway


def test_the_chance_of_a_fetch_again_is_learned_from_the_session() -> None:
    assert refetch_chance(0, 0) == 0.5  # no evidence yet
    assert refetch_chance(8, 0) == pytest.approx(0.1)  # eight cleared, none fetched again
    assert refetch_chance(8, 8) == pytest.approx(0.9)


def test_a_term_found_in_most_results_keeps_no_line_of_any() -> None:
    """§7.4's preview keeps the lines that tell a result apart: a task word found in most
    results in view (here "then", in all four) tells none apart; "owner", in one, does."""
    history = tool_history(4, 100)
    for n, message in enumerate(history[2::2]):
        block = message["content"][0]
        block["content"] += "\nthen done" + ("\nthe owner is team-a" if n == 2 else "")
    terms = frozenset({"then", "owner", "absent"})
    found = found_terms(history, terms)
    named = Counter(chain.from_iterable(found))
    assert len(found) == 4 and telling_terms(named, len(found), terms) == {"owner", "absent"}
    assert telling_terms(Counter(), 0, terms) == terms  # no result yet
    rng = random.Random(2)  # any count: the terms named by at most half the results
    for _ in range(200):
        named = Counter({t: rng.randrange(6) for t in rng.sample(sorted(terms | {"x"}), 3)})
        results = rng.randrange(8)
        assert telling_terms(named, results, terms) == {
            t for t in terms if named[t] <= results / 2}


def test_a_call_that_repeats_a_cleared_one_is_a_fetch_again() -> None:
    history = tool_history(4, 100)
    history += tool_history(1, 100)[1:]  # "make 0" once more, under a new id
    history[-2]["content"][0]["id"] = history[-1]["content"][0]["tool_use_id"] = "toolu_again"
    assert fetched_again(calls(history), ["toolu_1"]) == []  # make 1 was never asked again
    assert fetched_again(calls(history), ["toolu_0"]) == ["toolu_again"]
    assert fetched_again(calls(history), ["toolu_0", "toolu_again"]) == []  # cleared itself


def test_the_bands_upper_edge_is_counted_for_only_where_the_batches_differ(tmp_path) -> None:
    """§9.5: a size from the estimate is known within its error band. With the band's upper
    edge inside it, the batch past the edge (whatever the cache says) and the one below it
    (only if it repays) may differ: then the request is counted, and the count decides.
    Where both are the same, here no batch at all, nothing is counted."""
    session = _session(tmp_path, Simulator())
    layer = _layer()
    history = tool_history(6, 3_000)
    layer.prepare(history, session)
    limits, counted, count = layer.limits(session), [], session.count
    session.count = lambda messages: counted.append(len(messages)) or count(messages)
    edge = limits.band_high
    layer.sized = (edge, 1_000)  # the estimate says the edge, give or take 1,000 tokens
    assert layer.clear_batch(history[:3], session, edge, limits) == (history[:3], edge)
    assert counted == []  # one result, the newest, kept: no batch either side of the edge
    kept, size = layer.clear_batch(history, session, edge, limits)
    assert counted == [len(history)]  # past the edge it would clear; below, not repay
    assert kept == history and size < limits.band_low  # counted: far below, no batch


@pytest.mark.exercise("5.5")
def test_well_below_the_band_a_batch_runs_once_it_repays(tmp_path) -> None:
    """The same small batch (18K of 200K, far under the band's lower edge) waits while few
    requests are expected to repay its rewrite and a fetch again, and runs once they are."""
    session = _session(tmp_path, Simulator())
    layer = _layer()
    history = tool_history(6, 3_000)
    layer.prepare(history, session)
    assert session.events == [] and session.count(history) < layer.limits(session).band_low
    chat = [{"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            {"role": "user", "content": [{"type": "text", "text": "go on"}]}] * 13
    layer.prepare(history[:1] + chat + history[1:], session)
    assert [e["layer"] for e in session.events] == ["microcompact"]
    assert session.events[0]["trigger"].startswith("repays; frees ")


def test_no_batch_under_the_models_cache_minimum(tmp_path, monkeypatch) -> None:
    """A request under the model's cache minimum (``models.py``; Haiku's is 4,096 tokens) is
    never cached, so a batch saves no cache read: none runs there, though one would repay by
    the arithmetic (shown with the rule switched off); at the minimum it runs (§6.4, §6.5)."""
    minimum = models.get("claude-haiku-4-5").cache_minimum
    limits = _layer().limits(_session(tmp_path, Simulator()))
    assert not cacheable(minimum - 1, limits, "claude-haiku-4-5")
    assert cacheable(minimum, limits, "claude-haiku-4-5")
    chat = [{"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            {"role": "user", "content": [{"type": "text", "text": "go on"}]}] * 13

    def batches(rounds: int, tokens: int, where: str) -> tuple[int, list[str]]:
        session = _session(tmp_path / where, Simulator())
        history = tool_history(rounds, tokens)
        history = history[:1] + chat + history[1:]
        size = session.count(history) + _layer().measure([], session)  # + system and tools
        _layer().prepare(history, session)
        return size, [e["layer"] for e in session.events]

    small, large = batches(3, 800, "small"), batches(4, 1_000, "large")
    assert small[0] < minimum <= large[0]
    assert small[1] == [] and large[1] == ["microcompact"]
    # the module this file's Pipeline uses (a test that switches implementations reloads the
    # stage packages, so the dotted name may name a newer copy)
    monkeypatch.setattr(band, "cacheable", lambda *args: True)
    assert batches(3, 800, "switched-off")[1] == ["microcompact"]


@pytest.mark.exercise("5.5")
def test_one_more_result_is_kept_per_result_fetched_again(tmp_path) -> None:
    """Cold (idle past the TTL, §6.8), every seen result but the newest is cleared. The agent
    then runs "make 0" again: from then on that result is kept with the newest one, where
    without the evidence it would be cleared as soon as the agent has seen it (§3.2's loop)."""
    sim = Simulator()
    session = _session(tmp_path, sim)
    layer = _layer()
    history = tool_history(4, 3_000)
    layer.prepare(history, session)
    sim.clock.advance(301)
    layer.prepare(history, session)
    cleared = set(layer.ledger.decisions)
    assert cleared == {"toolu_0", "toolu_1", "toolu_2"}
    again = tool_history(1, 3_000)[1:]  # "make 0" once more, under a new id
    again[0]["content"][0]["id"] = again[1]["content"][0]["tool_use_id"] = "toolu_again"
    later = tool_history(6, 3_000)[-2:]  # then "make 5": the fetch again has been seen
    history = history + again + later
    sim.clock.advance(301)
    layer.prepare(history, session)
    assert "toolu_again" not in layer.ledger.decisions  # kept: the agent needed it again
    assert "toolu_3" in layer.ledger.decisions  # the older one, as before, cleared


def test_a_file_changed_on_disk_is_attached_once_with_its_current_text(tmp_path) -> None:
    target = tmp_path / "limits.py"
    target.write_text("MAX_BATCH = 200\n", encoding="utf-8")
    seen = {"limits.py": target.stat().st_mtime_ns}  # when the agent read it
    files = ChangedFiles()
    assert files.changed(seen, tmp_path) == []
    target.write_text("MAX_BATCH = 250\n", encoding="utf-8")
    os.utime(target, ns=(seen["limits.py"] + 10**9, seen["limits.py"] + 10**9))
    (block,) = files.changed(seen, tmp_path)
    assert block.startswith('<file path="limits.py">\n' + CHANGED_NOTE)
    assert "MAX_BATCH = 250" in block
    assert files.changed(seen, tmp_path) == []  # said once


@pytest.mark.exercise("5.5")
def test_the_note_is_a_frozen_decision_on_the_newest_result(tmp_path) -> None:
    """§6.9: the attachment goes on the newest result, after the cached prefix, and is replayed
    the same on every later request."""
    sim = Simulator()
    session = _session(tmp_path, sim)
    target = tmp_path / "limits.py"
    target.write_text("MAX_BATCH = 200\n", encoding="utf-8")

    class Summarizer:  # stage 4's file log, as the pipeline reads it
        mtime_notes = True

        class files:  # noqa: N801 - stands in for a FileLog
            mtimes = {"limits.py": target.stat().st_mtime_ns - 10**9}

        def __call__(self, messages, session):
            return messages

    layer = Pipeline(summarize=Summarizer())
    history = tool_history(2, 200)
    sent = layer.prepare(history, session)
    assert CHANGED_NOTE in sent[-1]["content"][0]["content"]
    assert command_output(1, 200) in sent[-1]["content"][0]["content"]
    assert layer.ledger.decisions["toolu_1"]["layer"] == "changed-note"
    again = layer.prepare(history, session)
    assert again[-1]["content"][0]["content"] == sent[-1]["content"][0]["content"]


@pytest.mark.exercise("5.5")
def test_the_working_copy_of_a_file_being_edited_is_kept(tmp_path) -> None:
    """§10.1: the newest read of a file the agent has edited stays in full (cleared, it would
    only make the agent read the file again before its next edit); an older read of it and
    the other results go, cold (§6.8)."""
    sim = Simulator()
    session = _session(tmp_path, sim)
    layer = _layer()
    calls = [("read_file", {"path": "a.py"}), ("read_file", {"path": "a.py"}),
             ("edit_file", {"path": "a.py", "old": "x", "new": "y"}),
             ("read_file", {"path": "b.py"}), ("run_command", {"command": "make"})]
    history = _calls(session, calls, 3_000)
    layer.prepare(history, session)
    sim.clock.advance(301)
    layer.prepare(history, session)
    assert set(layer.ledger.decisions) == {"toolu_0", "toolu_2", "toolu_3"}  # toolu_1 kept


@pytest.mark.exercise("5.5")
def test_a_saved_copy_read_back_is_kept_until_the_next_change(tmp_path) -> None:
    """§7.4, §3.2: the agent read a saved copy back for its next change; cleared before it,
    the copy is read back again (the recover-and-clear loop). Kept below the band's upper
    edge until the agent edits; then cleared like the rest, cold (§6.8)."""
    sim = Simulator()
    session = _session(tmp_path, sim)
    layer = _layer()
    back = ("read_file", {"path": ".task_outputs/tool-results/toolu_old.txt"})
    calls = [("run_command", {"command": "make"}), back, ("read_file", {"path": "b.py"}),
             ("run_command", {"command": "make test"})]
    history = _calls(session, calls, 3_000)
    assert recovered(tool_uses(history)) == ["toolu_1"]
    layer.prepare(history, session)
    sim.clock.advance(301)
    layer.prepare(history, session)
    assert set(layer.ledger.decisions) == {"toolu_0", "toolu_2"}  # toolu_1 kept
    edit = ("edit_file", {"path": "b.py", "old": "x", "new": "y"})
    history = _calls(session, [*calls, edit, ("run_command", {"command": "make check"})], 3_000)
    assert recovered(tool_uses(history)) == []
    sim.clock.advance(301)
    layer.prepare(history, session)
    assert {"toolu_1", "toolu_3", "toolu_4"} <= set(layer.ledger.decisions)


def test_past_the_bands_upper_edge_a_saved_copy_read_back_is_cleared(tmp_path) -> None:
    """§4.6: the band's upper edge bounds the context whatever else is said, so there the
    copy the agent read back goes with the other old results."""
    session = _session(tmp_path, Simulator())
    layer = _layer()
    back = ("read_file", {"path": ".task_outputs/tool-results/toolu_old.txt"})
    history = _calls(session, [("run_command", {"command": "make"}), back,
                               ("run_command", {"command": "make test"})], 40_000)
    assert session.count(history) > layer.limits(session).band_high
    layer.prepare(history, session)
    assert session.events[0]["trigger"].endswith(f"upper edge {130_000:,}")
    assert {"toolu_0", "toolu_1"} <= set(layer.ledger.decisions)


def test_the_anchor_is_the_newest_message_holding_a_cleared_result() -> None:
    """``find_anchor`` reads the results' places backwards: the same message as a look at
    every message for a result microcompact cleared, whatever the decisions."""
    import random

    from s5_pipeline.anchor import find_anchor, holds_cleared
    from s5_pipeline.microcompact import located_results

    rng = random.Random(5)
    history: list = [{"role": "user", "content": "the task"}]
    for n in range(40):
        history.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{n}.{k}", "name": "read_file", "input": {}}
            for k in range(n % 3 + 1)]})
        history.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{n}.{k}", "content": "x"}
            for k in range(n % 3 + 1)]})
    ids = [ident for _, ident in located_results(history)]
    for _ in range(50):
        decisions = {i: {"layer": rng.choice(["microcompact", "offload"])}
                     for i in rng.sample(ids, k=rng.randrange(0, 6))}
        newest = max((i for i, m in enumerate(history) if holds_cleared(m, decisions)),
                     default=None)
        assert find_anchor(located_results(history), decisions) == newest
