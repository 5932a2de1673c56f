"""The rung of sub-agents: the lossy hand-off (§11.4; DESIGN §4 "Sub-agents").

A child reads a long log for one number; its report is all the lead agent gets. The rung
looks at each report beside the facts the child's steps showed (``lost_facts``): a fact the
report left out and the lead agent needed shows as the lead taking the child's step again
itself (a re-fetch), or as a failed check. With the structured report (findings, files and
commands, §11.4 ① ②) every finding comes back.
"""

from __future__ import annotations

from typing import Any

from .. import scenarios
from ..brain.delegate import TASK, assigned
from . import runs
from .core import Cell, Verdict, broken, holds, pitfall

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


def handoff_loss(cell: Cell) -> Verdict:
    result = runs.get(cell, SCENARIO).result
    plan = scenarios.load(SCENARIO)
    children = len(result.summary.subagents)
    if not children:
        return broken("no sub-agent was started: no hand-off to judge")
    lost = lost_facts(result.original, plan)
    own = {f"{b['name']} {next(iter(b['input'].values()), '')}"
           for b in _blocks(result.original, "tool_use") if b["name"] != TASK}
    again = [s.call.signature for s in plan.steps if s.delegate and s.call.signature in own
             and any(plan.marker(f) in lost for f in s.yields)]
    if again:
        return pitfall(f"{len(lost)} facts that {children} sub-agents saw were missing from "
                       f"their reports; the lead agent took {len(again)} of their steps again "
                       f"itself (first: {again[0]}, for {lost[0]!r})")
    if lost and not result.summary.success:
        return pitfall(f"{len(lost)} facts the sub-agents saw were missing from their reports "
                       f"(first: {lost[0]!r}) and the task failed")
    if lost:
        return broken(f"{len(lost)} facts went missing from the reports but were never needed")
    return holds(f"{children} sub-agents reported every fact their steps showed "
                 f"({sum(len(s.yields) for s in plan.steps if s.delegate)} in all); the lead "
                 "agent took none of their steps again")
