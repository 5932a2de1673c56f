"""The rung of sub-agents: the lossy hand-off (§11.4; DESIGN §4 "Sub-agents").

A child reads a long log for one number; its report is all the lead agent gets. The rung
looks at each report beside the facts the child's own tool results showed: a fact the child
saw, the report left out and the lead agent needed shows as the lead taking the child's step
again itself (a re-fetch), or as a failed check. With the structured report (findings,
files and commands, §11.4 ① ②) every finding comes back.
"""

from __future__ import annotations

from .. import scenarios
from ..brain.delegate import TASK, assigned
from . import runs
from .core import Cell, Verdict, broken, holds, pitfall

SCENARIO = "isolate-read"


def handoff_loss(cell: Cell) -> Verdict:
    result = runs.get(cell, SCENARIO).result
    plan = scenarios.load(SCENARIO)
    blocks = [b for m in result.original for b in m["content"]]
    uses = {b["id"]: b for b in blocks if b.get("type") == "tool_use"}
    reports = {b["tool_use_id"]: str(b.get("content", "")) for b in blocks
               if b.get("type") == "tool_result" and uses.get(b.get("tool_use_id"), {})
               .get("name") == TASK}
    if not reports:
        return broken("no sub-agent was started: no hand-off to judge")
    lost: list[tuple[str, str]] = []  # (fact's marker, the child's call that showed it)
    for use_id, report in reports.items():
        for step in assigned(plan, str(uses[use_id]["input"].get("prompt", ""))):
            lost += [(plan.marker(f), step.call.signature) for f in step.yields
                     if plan.marker(f) not in report]
    own = [f"{b['name']} {next(iter(b['input'].values()), '')}" for b in uses.values()
           if b["name"] != TASK]
    again = [(marker, call) for marker, call in lost if call in own]
    children = len(result.summary.subagents)
    if again:
        return pitfall(f"{len(lost)} facts that {children} sub-agents saw were missing from "
                       f"their reports; the lead agent took {len(again)} of their steps again "
                       f"itself (first: {again[0][1]}, for {again[0][0]!r})")
    if lost and not result.summary.success:
        return pitfall(f"{len(lost)} facts the sub-agents saw were missing from their reports "
                       f"(first: {lost[0][0]!r}) and the task failed")
    if lost:
        return broken(f"{len(lost)} facts went missing from the reports but were never needed")
    return holds(f"{children} sub-agents reported every fact their steps showed "
                 f"({sum(len(s.yields) for s in plan.steps if s.delegate)} in all); the lead "
                 "agent took none of their steps again")
