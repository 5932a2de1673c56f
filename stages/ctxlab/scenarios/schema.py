"""What a scenario is: a task, a workspace, a plan of tool calls and a success check (DESIGN §5).

A *fact* is a marker string that appears in a tool result; a step *needs* facts (they must be
visible to take it) and *yields* facts (they appear in its result). The simulated agent
(``ctxlab.brain``) follows the plan by looking at what is visible, so everything here is data:
nothing in this module knows about stages, tests or notebooks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

TOOL_FIELDS: dict[str, tuple[str, ...]] = {
    "read_file": ("path",),
    "run_command": ("command",),
    "edit_file": ("path", "old", "new"),
    "write_file": ("path", "content"),
    "search_docs": ("query",),
}
"""The tools the agent may call and their input fields (all strings), as ``ctxlab.tools``."""


class ScenarioError(ValueError):
    """A scenario file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True, eq=False)
class Call:
    """One tool call: a tool name and its input."""

    tool: str
    input: dict[str, str]

    @cached_property
    def key(self) -> str:
        """Canonical identity: equal calls have equal keys."""
        return json.dumps([self.tool, self.input], sort_keys=True, ensure_ascii=False)

    @property
    def target(self) -> str:
        """The input that says what the call is about: a path, a command or a query."""
        return self.input[TOOL_FIELDS[self.tool][0]]

    @property
    def signature(self) -> str:
        """A one-line form of the call, as a summary would mention it (``read_file app.py``)."""
        return f"{self.tool} {self.target}"

    @property
    def mark(self) -> str:
        """Text whose presence shows the call was made: the new text of an edit, else the
        signature."""
        return self.input["new"] if self.tool == "edit_file" else self.signature

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Call) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def block(self) -> dict[str, Any]:
        """A ``tool_use`` block without ``id`` (the simulator fills it)."""
        return {"type": "tool_use", "name": self.tool, "input": dict(self.input)}


@dataclass(frozen=True)
class Step:
    """One planned action.

    ``tempts`` names a constraint this step breaks; ``comply`` is the call a careful agent makes
    instead while the constraint is visible. A step that ``repeats`` an earlier step's call (a
    second test run after a fix) is known to be done only by its ``yields`` or ``evidence``.
    ``stale`` is the edit an agent makes from a copy of the file older than what is on disk
    (the file changed after it was read, §10.2); ``call`` is then the edit of the new content.
    ``delegate`` names a part of the plan a sub-agent may take (§11): adjacent steps with the
    same name go to one child, whose report ends with the facts the part's last step yields.
    """

    id: str
    call: Call
    needs: tuple[str, ...] = ()
    yields: tuple[str, ...] = ()
    parallel: str | None = None
    tempts: str | None = None
    comply: Call | None = None
    evidence: tuple[str, ...] = ()
    note: str = ""
    repeats: bool = False
    stale: Call | None = None
    delegate: str | None = None

    @property
    def calls(self) -> tuple[Call, ...]:
        """Every call that performs this step (the tempting one first, a stale edit last)."""
        return tuple(c for c in (self.call, self.comply, self.stale) if c is not None)

    @property
    def marks(self) -> tuple[str, ...]:
        """Texts whose visibility shows the step is done (besides its facts for repeats)."""
        own = () if self.repeats else tuple(c.mark for c in self.calls)
        return own + self.evidence


@dataclass(frozen=True)
class Image:
    """A solid-colour PNG shown to the model, e.g. a screenshot stand-in (§9.1)."""

    width: int
    height: int
    color: str


@dataclass(frozen=True)
class UserMessage:
    """A user message sent after the step ``after`` has run (None: the opening message)."""

    text: str
    after: str | None = None
    images: tuple[Image, ...] = ()


@dataclass(frozen=True)
class Constraint:
    """A user rule; obeyed only while its text is visible (governance decay, §12.3)."""

    id: str
    text: str
    after: str | None = None


@dataclass(frozen=True)
class GeneratedFile:
    """A workspace file written from a seed at workspace creation, with facts embedded."""

    path: str
    kind: str
    chars: int
    seed: int
    markers: tuple[str, ...] = ()
    place: str = "middle"


@dataclass(frozen=True)
class Success:
    """The real check: ``command`` must exit 0 and ``unchanged`` files keep their content."""

    command: str
    unchanged: tuple[str, ...] = ()


BEHAVIOUR_KEYS = ("note_rate", "output_tokens_median", "output_tokens_p90",
                  "reread_in_view_rate", "parallel_read", "parallel_search", "parallel_run")
"""Habits a scenario may set in ``[behaviour]``; unset ones take the calibrated defaults
(``ctxlab.brain.habits``)."""


@dataclass(frozen=True)
class Scenario:
    """A loaded, validated scenario (see ``fixtures/scenarios/*.toml``)."""

    name: str
    description: str
    model: str
    task: str
    gist: str
    goal: tuple[str, ...]
    facts: dict[str, str]
    source: Path
    generated: tuple[GeneratedFile, ...]
    steps: tuple[Step, ...]
    success: Success
    constraints: tuple[Constraint, ...] = ()
    messages: tuple[UserMessage, ...] = ()
    images: tuple[Image, ...] = ()
    dynamic: tuple[str, ...] = ("date",)
    behaviour: dict[str, float] = field(default_factory=dict)
    path: Path | None = field(default=None, compare=False)

    def marker(self, fact: str) -> str:
        """The marker string of fact ``fact``."""
        return self.facts[fact]

    def index(self, step_id: str) -> int:
        """Position of step ``step_id`` in the plan."""
        return next(i for i, step in enumerate(self.steps) if step.id == step_id)
