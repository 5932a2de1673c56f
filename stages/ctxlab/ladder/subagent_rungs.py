"""The rung of sub-agents: the lossy hand-off (§11.4; DESIGN §4 "Sub-agents").

A child reads a long log for one number; its report is all the lead agent gets. The rung
looks at each report beside the facts the child's steps showed (``lost_facts``): a fact the
report left out and the lead agent needed shows as the lead taking the child's step again
itself (a re-fetch), or as a failed check. With the structured report (findings, files and
commands, §11.4 ① ②) every finding comes back. The report's form is the harness's
(``ctxlab.subagents``): it asks every stage's children for it, so the rung is judged on every
stage, each against the same stage with ``--set handoff=free``.
"""

from __future__ import annotations

from typing import Any

from .. import scenarios
from ..brain.delegate import TASK, assigned
from . import paired, runs
from .core import Cell, Verdict, broken

SCENARIO = "isolate-read"


def _blocks(history: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [b for m in history for b in m["content"] if b.get("type") == kind]


def lost_facts(history: list[dict[str, Any]], plan: scenarios.Scenario) -> list[str]:
    """The markers of the facts that the steps handed to each sub-agent yield and that its
    report (the ``task`` call's result) does not contain, in the order of the calls."""
    calls = {b["id"]: b for b in _blocks(history, "tool_use") if b.get("name") == TASK}
    lost: list[str] = []
    for result in _blocks(history, "tool_result"):
        call = calls.get(result.get("tool_use_id", ""))
        if call is None:
            continue
        report = str(result.get("content", ""))
        for step in assigned(plan, str(call["input"].get("prompt", ""))):
            lost += [plan.marker(f) for f in step.yields if plan.marker(f) not in report]
    return lost


def _lost(cell: Cell, seed: int) -> float:
    result = runs.get(cell, SCENARIO, seed=seed).result
    return len(lost_facts(result.original, scenarios.load(SCENARIO)))


def _refetched(cell: Cell, seed: int) -> str | None:
    """What the lead agent did for a fact a report left out: its step taken again, or a
    failed task (None when no fact was lost, or a lost one was never needed)."""
    result = runs.get(cell, SCENARIO, seed=seed).result
    plan = scenarios.load(SCENARIO)
    lost = lost_facts(result.original, plan)
    own = {f"{b['name']} {next(iter(b['input'].values()), '')}"
           for b in _blocks(result.original, "tool_use") if b["name"] != TASK}
    again = [s.call.signature for s in plan.steps if s.delegate and s.call.signature in own
             and any(plan.marker(f) in lost for f in s.yields)]
    children = len(result.summary.subagents)
    if again:
        return (f"{len(lost)} facts that {children} sub-agents saw were missing from their "
                f"reports; the lead agent took {len(again)} of their steps again itself "
                f"(first: {again[0]}, for {lost[0]!r})")
    if lost and not result.summary.success:
        return (f"{len(lost)} facts the sub-agents saw were missing from their reports "
                f"(first: {lost[0]!r}) and the task failed")
    return None


def handoff_loss(cell: Cell) -> Verdict:
    """The harness's ``task`` tool asks every stage's children for the structured report;
    ``--set handoff=free`` asks for free prose. Each cell is paired with the other hand-off
    on its own stage, over ``paired.SEEDS``."""
    if not runs.get(cell, SCENARIO).result.summary.subagents:
        return broken("no sub-agent was started: no hand-off to judge")
    free = cell.options.get("handoff") == "free"
    partner = Cell(f"{cell.stage}" if free else f"{cell.stage}:free-handoff", cell.stage,
                   {k: v for k, v in cell.options.items() if k != "handoff"} if free
                   else {**cell.options, "handoff": "free"}, cell.layer)
    return paired.judge(cell, partner, weak_side=free,
                        name="facts the sub-agents saw and left out of their reports",
                        quantity=_lost, mechanism=_refetched)
