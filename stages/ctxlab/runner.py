"""Run a stage on a scenario and meter it (DESIGN §6; guide §14 "every turn, print…").

The runner sets the bench up — a fresh workspace, the simulated agent behind the offline API
(or the real API with ``live=True``), the sandboxed tools — then hands the conversation to
stage 1's loop with the chosen stage's context layer, records one ``TurnRecord`` per model call
and checks the task for real in the workspace at the end. ``stage=None`` runs with no context
layer at all ("keep everything"), for the total bill's baseline.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import anthropic

from . import scenarios
from .brain import Brain
from .session import Session
from .sim import Simulator, make_client
from .telemetry import (
    ErrorInfo,
    RunSummary,
    TurnRecord,
    error_info,
    input_hash,
    record_from_usage,
    tool_call,
)
from .tools import ToolBox, ToolOutput, definitions
from .workbook.layout import stage as stage_info

SYSTEM = ("You are a careful coding agent working in a small repository. Use the tools to "
          "inspect files and run commands, make the smallest change that solves the task, and "
          "verify it before you finish.")
KEEP_EVERYTHING = "keep-everything"


@dataclass
class RunResult:
    """Everything one run produced."""

    summary: RunSummary
    records: list[TurnRecord]
    messages: list[dict[str, Any]]
    problems: tuple[str, ...] = ()
    simulator: Simulator | None = field(default=None, repr=False)
    layer: Any = field(default=None, repr=False)  # the stage's context layer, for inspection


def load_stage(number: int) -> ModuleType:
    """Import stage ``number``'s package (reference or workbook, per ``ctxlab.use``)."""
    return importlib.import_module(stage_info(number).package)


class _MeteredToolBox(ToolBox):
    """A ToolBox that remembers each call's result, to flag repeats with unchanged results."""

    def __init__(self, *args: Any, on_repeat: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: dict[tuple[str, str], str] = {}
        self.on_repeat = on_repeat

    def run(self, name: str, tool_input: dict[str, Any]) -> ToolOutput:
        output = super().run(name, tool_input)
        key = (name, input_hash(tool_input))
        if self.seen.get(key) == output.content:  # §12.2: same call, same result
            self.on_repeat()
        self.seen[key] = output.content
        return output


def _client(sim: Simulator, live: bool) -> anthropic.Anthropic:
    if not live:
        return make_client(sim)
    if not os.environ.get("ANTHROPIC_API_KEY"):
        raise RuntimeError("--live needs ANTHROPIC_API_KEY in the environment "
                           "(ANTHROPIC_BASE_URL is honoured)")
    return anthropic.Anthropic()


def run(stage: int | None, scenario: str, *, model: str | None = None, seed: int = 0,
        max_turns: int | None = None, live: bool = False,
        on_record: Callable[[TurnRecord], None] | None = None,
        layer_options: dict[str, Any] | None = None, brain_options: dict[str, Any] | None = None,
        simulator: Simulator | None = None) -> RunResult:
    """Run ``stage`` (1–5, or None for no context layer) on ``scenario``."""
    plan = scenarios.load(scenario)
    model = model or plan.model
    first = load_stage(1)
    module = load_stage(stage) if stage is not None else first
    layer = module.make_layer(**(layer_options or {})) if stage is not None else None
    sim = simulator or Simulator(responder=Brain(plan, seed=seed, **(brain_options or {})))
    records: list[TurnRecord] = []
    turn = 0

    def observe(kind: str, sent: list[dict[str, Any]], response: Any,
                error: BaseException | None) -> None:
        nonlocal turn
        turn += kind == "agent"
        calls = [tool_call(b.name, b.input) for b in getattr(response, "content", [])
                 if b.type == "tool_use"]
        record = record_from_usage(
            max(turn, 1), "agent" if kind == "agent" else "summary",
            getattr(response, "usage", None), model=model, messages_sent=len(sent),
            estimated_tokens=module.estimate_tokens(sent, session.system, session.tools),
            tool_calls=calls, compactions=session.events,
            error=error_info(error) if error is not None else None, clock=sim.clock.now)
        session.events = []
        records.append(record)
        if on_record:
            on_record(record)

    def flag_repeat() -> None:
        records[-1].thrash = True

    error: ErrorInfo | None = None
    with scenarios.open_workspace(plan) as workspace:
        session = Session(_client(sim, live), model, [{"type": "text", "text": SYSTEM}],
                          definitions(), workspace.root, observer=observe,
                          now=time.monotonic if live else lambda: sim.clock.now)
        messages = [scenarios.opening(plan)]
        toolbox = _MeteredToolBox(workspace, on_repeat=flag_repeat)
        try:
            messages = first.run_loop(session, messages, toolbox, layer=layer,
                            follow_ups=scenarios.FollowUps(plan),
                            max_turns=max_turns or 3 * len(plan.steps) + 20)
        except anthropic.APIError as failure:
            error = error_info(failure)
        outcome = scenarios.check(plan, workspace.root)
    summary = RunSummary.from_records(records, stage=stage or KEEP_EVERYTHING,
                                      scenario=scenario, success=outcome.passed and not error,
                                      error=error)
    return RunResult(summary, records, messages, outcome.problems, sim, layer)
