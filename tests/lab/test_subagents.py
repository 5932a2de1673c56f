"""Sub-agents on the bench (§11): the task tool, the bill of parent plus children, reading
versus writing, and a run without a delegable part left as it was."""

from __future__ import annotations

import json

import pytest

from ctxlab import runner, scenarios
from ctxlab.brain.delegate import TASK
from ctxlab.brain.retrieval import switched
from ctxlab.subagents import Delegation, tools_for
from ctxlab.tools import definitions

INLINE = {"enabled": False}
NO_NOTE = {"summary": {"mtime_notes": False}}


def _uses(messages: list[dict]) -> list[dict]:
    return [b for m in messages for b in m["content"] if b.get("type") == "tool_use"]


def _results(messages: list[dict]) -> dict[str, dict]:
    return {b["tool_use_id"]: b for m in messages for b in m["content"]
            if b.get("type") == "tool_result"}


@pytest.fixture(scope="module")
def read_runs() -> tuple[runner.RunResult, runner.RunResult]:
    """With context rot off: with it on, a fact of a report the parent misses is fetched
    again from its log in the parent (a draw no layer controls), which is §4, not §11."""
    with switched(False):
        return runner.run(5, "isolate-read"), runner.run(5, "isolate-read", delegation=INLINE)


@pytest.fixture(scope="module")
def write_runs() -> tuple[runner.RunResult, runner.RunResult]:
    """Stage 5 with its changed-file note off (§10.2: it would tell the lead, see below)."""
    return (runner.run(5, "isolate-write", layer_options=NO_NOTE),
            runner.run(5, "isolate-write", delegation=INLINE, layer_options=NO_NOTE))


def test_reading_in_children_keeps_the_parent_context_small(read_runs) -> None:
    """§11.1: the logs are read in the children's contexts; the parent sees reports."""
    isolated, inline = read_runs
    summary = isolated.summary
    assert summary.success and inline.summary.success
    assert len(summary.subagents) == 3 == len(isolated.children)
    assert summary.tokens_per_task >= sum(c["tokens_per_task"] for c in summary.subagents)
    parent = sum(r.total_tokens for r in isolated.records)
    assert summary.tokens_per_task == parent + sum(c["tokens_per_task"]
                                                   for c in summary.subagents)
    assert summary.peak_occupancy < inline.summary.peak_occupancy / 5
    assert all(c["peak_occupancy"] > summary.peak_occupancy for c in summary.subagents)
    read = {b["input"].get("path") for b in _uses(isolated.messages)}
    assert not any(str(p).startswith("logs/") for p in read)  # never in the parent's view
    assert not {TASK} & {b["name"] for b in _uses(inline.messages)}


def test_a_child_starts_fresh_in_the_same_workspace(read_runs) -> None:
    """Its first message is the prompt of the call; its tools the subset the call named."""
    isolated, _ = read_runs
    calls = [b for b in _uses(isolated.messages) if b["name"] == TASK]
    results = _results(isolated.messages)
    for call, (description, child) in zip(calls, isolated.children, strict=True):
        assert description == call["input"]["description"]
        first = child.messages[0]["content"][0]["text"]
        assert first == call["input"]["prompt"]
        assert {b["name"] for b in _uses(child.messages)} <= set(
            call["input"]["tools"].split(","))
        assert results[call["id"]]["content"] == child.messages[-1]["content"][0]["text"]
        assert child.records[0].turn == 1 and child.summary.subagents == []


def test_dependent_edits_fail_when_one_is_delegated(write_runs) -> None:
    """§11.3: the lead agent edits its copy from before the child's edit; inline it sees its
    own edit. The isolated run fails its check and costs more."""
    isolated, inline = write_runs
    assert inline.summary.success and not isolated.summary.success
    assert isolated.summary.tokens_per_task > inline.summary.tokens_per_task
    assert isolated.summary.cost_usd > inline.summary.cost_usd
    plan = scenarios.load("isolate-write")
    stale = plan.steps[plan.index("round-total")].stale
    edits = [b for b in _uses(isolated.messages) if b["name"] == "edit_file"]
    assert [e["input"] for e in edits] == [stale.input]
    assert "was not found" in str(_results(isolated.messages)[edits[0]["id"]]["content"])


def test_the_changed_file_note_tells_the_lead_what_the_child_changed() -> None:
    """§10.2 with a second writer: stage 5 attaches orders.py, which the child edited after the
    lead read it, with the rebuild's note, and the lead edits the current text."""
    isolated = runner.run(5, "isolate-write")
    assert isolated.summary.success and isolated.summary.subagents
    plan = scenarios.load("isolate-write")
    stale = plan.steps[plan.index("round-total")].stale
    assert stale.input not in [b["input"] for b in _uses(isolated.messages)
                               if b["name"] == "edit_file"]
    assert any(e["layer"] == "changed-note" for e in isolated.layer.ledger.history)


def test_without_a_delegable_part_nothing_changes() -> None:
    """The tool is offered only where the plan has a part a sub-agent may take."""
    plan = scenarios.load("bugfix-small")
    assert tools_for(plan, Delegation(), None) == definitions()
    assert "subagents" not in runner.run(1, "bugfix-small").summary.to_dict()
    names = [t["name"] for t in tools_for(scenarios.load("isolate-read"), Delegation(), None)]
    assert TASK in names
    assert TASK not in [t["name"] for t in tools_for(
        scenarios.load("isolate-read"), Delegation(enabled=False), None)]


def test_bad_delegation_options_are_refused() -> None:
    with pytest.raises(ValueError, match="handoff must be one of"):
        Delegation.of({"handoff": "poem"})
    with pytest.raises(ValueError, match="unknown delegation option"):
        Delegation.of({"depth": 2})


def test_the_command_line_options(capsys: pytest.CaptureFixture[str]) -> None:
    """``--set handoff=…`` is checked before any work; ``--no-subagents`` runs inline."""
    from ctxlab.cli import main

    assert main(["run", "--stage", "5", "--scenario", "isolate-read",
                 "--set", "handoff=poem"]) == 2
    assert "expected one of structured, free" in capsys.readouterr().err
    assert main(["run", "--stage", "5", "--scenario", "isolate-write", "--no-subagents",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["success"] and "subagents" not in data
