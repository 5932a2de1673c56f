"""A child run and the bill of a run with children (§11.1, §11.2; DESIGN §4 "Sub-agents").

A ``task`` call starts a child through the one runner: a fresh context (its prompt is its
first message), its own context layer and telemetry, the parent's simulator (the same model
and clock) and the same sandboxed workspace. Its last answer is the tool result. The bill of
the run is the parent's plus every child's tokens and dollars; turns and peak occupancy stay
the parent's, and ``subagents`` lists each child's own figures.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..scenarios import Scenario
from ..scenarios import opening as task_opening
from ..telemetry import RunSummary
from ..tools import ToolOutput
from ..tools.toolbox import input_problem
from .tool import TASK_TOOL, Delegation, child_system, tool_names


@dataclass(frozen=True)
class Child:
    """What a child run starts from: the workspace, its prompt, system prompt and tools."""

    root: Path
    prompt: str
    system: str
    tools: list[str]
    description: str = ""


def opening(plan: Scenario, child: Child | None) -> dict[str, Any]:
    """The first user message: the task for a parent, the prompt for a child."""
    if child is None:
        return task_opening(plan)
    return {"role": "user", "content": [{"type": "text", "text": child.prompt}]}


def starter(run: Callable[..., Any], children: list[tuple[str, Any]], delegation: Delegation, *,
            root: Path, stage: int | None, layer: str | None,
            layer_options: dict[str, Any] | None,
            **same: Any) -> Callable[[Mapping[str, Any]], ToolOutput]:
    """The ``task`` tool of one parent: each call runs a child with ``run`` (the runner),
    ``same`` (scenario, model, seed, simulator) as the parent's, and keeps its description
    and ``RunResult`` in ``children``. A child of the parent's stage (or of its ``layer``,
    ``MODULE:FACTORY``, when it has no stage) gets the parent's layer options."""
    child_stage = delegation.stage if delegation.stage is not None else stage
    options = layer_options if child_stage == stage else None

    def task(tool_input: Mapping[str, Any]) -> ToolOutput:
        problem = input_problem(TASK_TOOL["input_schema"], tool_input)
        if problem is not None:
            return ToolOutput(f"Error: invalid input for task: {problem}", is_error=True)
        try:
            names = tool_names(str(tool_input["tools"]))
        except ValueError as error:
            return ToolOutput(f"Error: {error}", is_error=True)
        child = Child(root, str(tool_input["prompt"]), child_system(delegation), names,
                      str(tool_input["description"]))
        result = run(child_stage, child=child, layer_options=options,
                     layer=layer if child_stage is None else None, **same)
        # kept without its API client and simulator (the parent's): a run can be shared
        children.append((child.description,
                         dataclasses.replace(result, session=None, simulator=None)))
        return ToolOutput(_report(result.messages))

    return task


def _report(messages: list[dict[str, Any]]) -> str:
    """The child's last answer, as text (an empty answer says so)."""
    last = next((m for m in reversed(messages) if m["role"] == "assistant"), None)
    texts = [b["text"] for b in (last or {}).get("content", []) if b.get("type") == "text"]
    return "\n".join(texts) or "(the sub-agent ended without a report)"


def bill(summary: RunSummary, children: list[tuple[str, Any]]) -> RunSummary:
    """The run's summary with its children's tokens and dollars added and listed."""
    if not children:
        return summary
    listed = [{"description": description, **_figures(result.summary)}
              for description, result in children]
    return dataclasses.replace(
        summary, tokens_per_task=summary.tokens_per_task + sum(c["tokens_per_task"]
                                                               for c in listed),
        cost_usd=summary.cost_usd + sum(c["cost_usd"] for c in listed), subagents=listed)


def _figures(summary: RunSummary) -> dict[str, Any]:
    return {"stage": summary.stage, "tokens_per_task": summary.tokens_per_task,
            "cost_usd": summary.cost_usd, "turns": summary.turns,
            "peak_occupancy": summary.peak_occupancy, "success": summary.success}
