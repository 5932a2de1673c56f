"""The simulated agent's habits (DESIGN §4): working notes, output length, working set and
staleness — each judged by what is visible, never by who is asking."""

from __future__ import annotations

import math
import random
import statistics
from pathlib import Path

import pytest
from test_brain_plan import Chat, view

from ctxlab.brain import Brain
from ctxlab.brain.habits import CALIBRATED, Behaviour, noted
from ctxlab.brain.workset import believed, says_changed
from ctxlab.scenarios import Call, ScenarioError, load
from ctxlab.tokens import count_block

CHECK = Call("run_command", {"command": "python3 check.py"})
READ = Call("read_file", {"path": "invoice.py"})


def test_defaults_are_the_calibrated_figures_and_a_scenario_may_set_its_own(
        tmp_path: Path) -> None:
    scenario = load("bugfix-small")
    assert Behaviour.of(scenario) == Behaviour(**CALIBRATED)
    text = scenario.path.read_text(encoding="utf-8")
    (tmp_path / "bugfix-small.toml").write_text(text + "\n[behaviour]\nnote_rate = 0.5\n")
    assert Behaviour.of(load(tmp_path / "bugfix-small.toml")).note_rate == 0.5
    assert Brain(scenario, note_rate=0.25).behaviour.note_rate == 0.25
    (tmp_path / "bugfix-small.toml").write_text(text + "\n[behaviour]\nnote_rate = 1.5\n")
    with pytest.raises(ScenarioError, match=r"behaviour\.note_rate: must be a probability"):
        load(tmp_path / "bugfix-small.toml")
    (tmp_path / "bugfix-small.toml").write_text(text + "\n[behaviour]\nnotes = 1\n")
    with pytest.raises(ScenarioError, match="unknown field"):
        load(tmp_path / "bugfix-small.toml")


@pytest.mark.parametrize("rate", [0.0, 0.1, 0.37, 1.0])
def test_notes_are_spread_evenly_at_the_rate(rate: float) -> None:
    for n in (7, 50, 1000):
        taken = sum(noted(k, rate, "s", 0) for k in range(n))
        assert abs(taken - n * rate) < 1


@pytest.mark.parametrize("results", [2, 3, 6, 19])
def test_short_sessions_pooled_over_seeds_are_noted_at_the_rate(results: int) -> None:
    """A session with few results gets no note or one; over seeds, the phases are stratified,
    so 40 sessions of ``results`` each are noted at the rate to within two notes, where
    independent phases (one draw per session) miss by up to seven."""
    rate = 0.0646
    for scenario in ("long-task", "chat-heavy", "constraint", "bugfix-small"):
        taken = sum(noted(k, rate, scenario, seed) for seed in range(40) for k in range(results))
        assert abs(taken - 40 * results * rate) <= 2, scenario


def test_a_noted_fact_survives_the_clearing_of_its_result() -> None:
    def after_clearing(note_rate: float) -> list[Call]:
        chat = Chat(load("bugfix-small"), note_rate=note_rate)
        chat.turn()  # runs the checks: FAIL discount_taken_once
        chat.turn()  # reads invoice.py
        for message in chat.messages:
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    block["content"] = "[result cleared]"
        return chat.next_calls()

    # the failing check was restated in the reply, so only the file is read again
    assert after_clearing(1.0) == [READ]
    assert CHECK in after_clearing(0.0)


def test_a_note_restates_the_fact_and_the_items_of_the_result() -> None:
    chat = Chat(load("bugfix-small"), note_rate=1.0)
    chat.turn()
    reply = chat.brain.respond(view(chat.messages))
    said = reply.content[0]["text"]
    assert said.startswith("Noted from run_command: FAIL discount_taken_once")


def test_output_lengths_follow_the_calibrated_distribution() -> None:
    behaviour = Behaviour(**CALIBRATED)
    rng = random.Random(7)
    draws = sorted(behaviour.output_tokens(rng) for _ in range(4000))
    assert statistics.median(draws) == pytest.approx(CALIBRATED["output_tokens_median"],
                                                     rel=0.05)
    assert draws[math.ceil(0.9 * len(draws)) - 1] == pytest.approx(
        CALIBRATED["output_tokens_p90"], rel=0.08)


def test_a_reply_has_about_the_drawn_number_of_tokens() -> None:
    scenario = load("bugfix-small")
    chat = Chat(scenario, output_tokens_median=300, output_tokens_p90=300.0001)
    reply = chat.brain.respond(view(chat.messages))
    assert sum(count_block(b) for b in reply.content) == pytest.approx(300, abs=3)
    thought = chat.brain.respond(view(chat.messages, thinking=True))
    assert count_block(thought.content[0]) > 250  # with thinking on, the length is thought


def test_the_content_of_the_file_decides_never_a_header() -> None:
    scenario = load("bugfix-small")
    step = scenario.steps[scenario.index("fix-discount")]
    source = (scenario.source / "invoice.py").read_text(encoding="utf-8")
    facts = "FAIL discount_taken_once; the bug: net = subtotal - discount - discount"
    summary_only = view([{"role": "user", "content": [{"type": "text", "text": facts}]}])
    header = view([{"role": "user", "content": [{"type": "text", "text": facts + (
        '\n<file path="invoice.py">\n(attached)\n</file>')}]}])
    content = view([{"role": "user", "content": [{"type": "text", "text": facts},
                                                 {"type": "text", "text": source}]}])
    assert believed(summary_only, scenario, step, step.call) == (None, True)
    assert believed(header, scenario, step, step.call) == (None, True)
    assert believed(content, scenario, step, step.call) == (step.call, False)


def test_a_change_note_must_name_the_file() -> None:
    note = '<file path="limits.py">\nNote: this file changed on disk after the agent last saw it'
    assert says_changed(note, "limits.py")
    assert not says_changed(note, "invoice.py")
    assert not says_changed("limits.py looks fine; nothing changed", "limits.py")


def test_the_stale_copy_is_believed_unless_a_visible_note_says_the_file_changed() -> None:
    scenario = load("stale-file")
    step = scenario.steps[scenario.index("raise-batch")]
    old = (scenario.source / "limits.py").read_text(encoding="utf-8")
    new = old.replace("MAX_BATCH = 200", "MAX_BATCH = 250  # upstream default")
    attached = f'<file path="limits.py">\n{new}\n</file>'
    noted_copy = attached.replace("\n", "\nNote: this file changed on disk since it was read.\n",
                                  1)

    def chosen(*texts: str) -> tuple[Call | None, bool]:
        blocks = [{"type": "text", "text": t} for t in texts]
        return believed(view([{"role": "user", "content": blocks}]), scenario, step, step.call)

    assert chosen(old) == (step.stale, False)                 # only the old copy: stale edit
    assert chosen(attached, old) == (step.stale, False)       # the latest copy is the old one
    assert chosen(noted_copy, old) == (step.call, False)      # the note vouches for the new one
    assert chosen(old, "limits.py changed on disk since") == (None, True)  # read it again


def test_the_in_view_reread_habit_checks_a_file_once_and_moves_on() -> None:
    """At the measured rate the agent reads again a file whose read is still in view, before
    a step (keyed on the seed and the step, not on what keeps the context); it never reads a
    file a third time out of habit, and after looking it takes the step."""
    scenario = load("long-task")
    again: list[Call] = []
    for seed in range(4):
        chat = Chat(scenario, seed=seed, reread_in_view_rate=0.5, rot=False)
        taken: list[Call] = []
        for _ in range(60):
            reply = chat.turn()
            if not calls_of(reply):
                break
            taken += calls_of(reply)
        reads = [c for c in taken if c.tool == "read_file"]
        assert all(reads.count(c) <= 2 for c in reads)
        again += [c for k, c in enumerate(reads) if c in reads[:k]]
    assert again, "at rate 0.5 some file in view is read again"
    plan_reads = sum(s.call.tool == "read_file" for s in scenario.steps)
    assert len(again) / (4 * plan_reads + len(again)) == pytest.approx(0.5, abs=0.2)
    quiet = Chat(scenario, reread_in_view_rate=0.0, rot=False)
    plain = [c for _ in range(60) for c in calls_of(quiet.turn())]
    assert len(plain) == len(set(plain)) + plain.count(CHECK) - 1


def calls_of(reply) -> list[Call]:
    return [Call(b["name"], b["input"]) for b in reply.content if b["type"] == "tool_use"]
