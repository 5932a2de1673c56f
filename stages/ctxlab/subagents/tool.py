"""The sub-agent tool as the model sees it, and the options of delegation (§11.1, §11.4).

Like Claude Code's Task tool: the model gives a short description, a self-contained prompt
and the tools the child may use; the child starts in a fresh context in the same workspace
and its report is the result. The child's instructions say how to report: in sections
(findings, where, what was not checked, next step — §11.4 ① and ②) by default, or, for the
naive variant, as free prose. The tool is offered only where the scenario's plan has a part
a sub-agent may take, so a run without one sends exactly what it did before.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..brain.delegate import TASK
from ..scenarios import Scenario
from ..tools import definitions
from ..tools.definitions import TOOL_DEFINITIONS

_FIELDS = {
    "description": "A few words on what the sub-agent is for.",
    "prompt": "Everything the sub-agent needs to know: its steps and the facts known so far.",
    "tools": "The tools it may use, comma-separated (e.g. 'read_file,run_command').",
}
TASK_TOOL: dict[str, Any] = {
    "name": TASK,
    "description": "Hand a self-contained part of the task to a sub-agent. It starts in a "
                   "fresh context, works in the same workspace with the tools you list, and "
                   "its final report comes back as this tool's result; it sees nothing of "
                   "this conversation but the prompt.",
    "input_schema": {"type": "object",
                     "properties": {k: {"type": "string", "description": v}
                                    for k, v in _FIELDS.items()},
                     "required": list(_FIELDS), "additionalProperties": False},
}
BRIEF = ("You are a sub-agent working for a lead agent on one part of a task in a small "
         "repository. Use the tools to do the steps you are given and nothing else; your last "
         "message is all the lead agent will see.")
HANDOFFS = {
    "structured": ("When you are done, reply with a report in these sections:\n"
                   "1. Findings: the exact lines, values and messages you found\n"
                   "2. Files and commands: every path you read or changed, every command run\n"
                   "3. Not checked: what you did not look at\n"
                   "4. Next step: what the lead agent should do next"),
    "free": "When you are done, reply with a short summary of what you found.",
}
"""How a child is asked to report (``--set handoff=…``)."""


@dataclass(frozen=True)
class Delegation:
    """Whether the tool is offered, the children's stage (None: the parent's) and their
    hand-off (a key of ``HANDOFFS``)."""

    enabled: bool = True
    stage: int | None = None
    handoff: str = "structured"

    @classmethod
    def of(cls, options: Mapping[str, Any] | None) -> Delegation:
        """From plain data (``runner.run(delegation=…)``); an unknown key or hand-off raises."""
        chosen = dict(options or {})
        unknown = set(chosen) - {"enabled", "stage", "handoff"}
        if unknown:
            raise ValueError(f"unknown delegation option(s) {sorted(unknown)}")
        made = cls(**chosen)
        if made.handoff not in HANDOFFS:
            raise ValueError(f"handoff must be one of {', '.join(HANDOFFS)}, "
                             f"not {made.handoff!r}")
        return made


def split(layer_options: Mapping[str, Any] | None,
          delegation: Mapping[str, Any] | None) -> tuple[dict[str, Any] | None, Delegation]:
    """``--set handoff=…`` is the sub-agent tool's option, not the layer's: taken out of the
    layer options into the delegation (so a ladder variant can name it like any other)."""
    options = dict(layer_options or {})
    chosen = dict(delegation or {})
    if "handoff" in options:
        chosen["handoff"] = options.pop("handoff")
    return options or None, Delegation.of(chosen)


def offered(plan: Scenario, delegation: Delegation) -> bool:
    """Whether the run offers the tool: enabled, and a part of the plan may be delegated."""
    return delegation.enabled and any(step.delegate for step in plan.steps)


def child_system(delegation: Delegation) -> str:
    """A child's system prompt: who it is and how to report."""
    return f"{BRIEF}\n\n{HANDOFFS[delegation.handoff]}"


def tools_for(plan: Scenario, delegation: Delegation,
              names: list[str] | None) -> list[dict[str, Any]]:
    """The definitions a request offers: a child's subset (``names``), else every tool, with
    the sub-agent tool when it is offered (a child never gets it: no grandchildren)."""
    if names is not None:
        return definitions(names)
    return definitions() + ([copy.deepcopy(TASK_TOOL)] if offered(plan, delegation) else [])


def tool_names(text: str) -> list[str]:
    """The tools a call asks for; raises ``ValueError`` naming an unknown one."""
    names = sorted({name.strip() for name in text.split(",") if name.strip()})
    unknown = [name for name in names if name not in TOOL_DEFINITIONS]
    if unknown or not names:
        raise ValueError(f"unknown tool(s) {unknown}; a sub-agent may use "
                         f"{', '.join(sorted(TOOL_DEFINITIONS))}")
    return names
