"""Run any context layer, with or without the API's own context management (API notes §5–§6).

``runner.run`` takes a stage number; the experiments here need layers no stage builds (a
cache-only client, stage 5 plus a server edit) and requests sent through the beta endpoint
(``client.beta.messages.create(betas=[...], context_management=...)``). Nothing in the
``Session`` / ``ContextLayer`` contract changes: ``BetaSession`` is a ``Session`` whose
``create`` adds the beta parameters to every call, and the observer here also bills what the
API reports outside the top-level usage — a server-side compaction's own iteration (R33) —
and records server edits as compaction events, so ``RunSummary`` counts them like any layer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic

from .. import scenarios
from ..brain import Brain
from ..runner import SYSTEM, RunResult, load_stage
from ..session import ContextLayer, Session
from ..sim import Simulator, make_client
from ..telemetry import (
    Compaction,
    ErrorInfo,
    RunSummary,
    TurnRecord,
    error_info,
    input_hash,
    record_from_usage,
    tool_call,
)
from ..tools import ToolBox, ToolOutput, definitions

CLEAR = "clear_tool_uses_20250919"
COMPACT = "compact_20260112"
BETA_FOR = {CLEAR: "context-management-2025-06-27", COMPACT: "compact-2026-01-12"}


@dataclass(frozen=True)
class ServerEdits:
    """The ``context_management.edits`` a client asks the API to apply, and their beta headers."""

    edits: tuple[dict[str, Any], ...] = ()

    @property
    def betas(self) -> list[str]:
        return sorted({BETA_FOR[e["type"]] for e in self.edits})

    def params(self) -> dict[str, Any]:
        """Extra keyword arguments for ``client.beta.messages.create``."""
        if not self.edits:
            return {}
        return {"betas": self.betas, "context_management": {"edits": list(self.edits)}}


class _Metered(ToolBox):
    """Flags a repeated call whose result did not change (§12.2), as the runner does."""

    def __init__(self, *args: Any, on_repeat: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: dict[tuple[str, str], str] = {}
        self.on_repeat = on_repeat

    def run(self, name: str, tool_input: dict[str, Any]) -> ToolOutput:
        output = super().run(name, tool_input)
        key = (name, input_hash(tool_input))
        if self.seen.get(key) == output.content:
            self.on_repeat()
        self.seen[key] = output.content
        return output


class _BetaClient:
    """Looks like a client whose ``messages`` is the beta endpoint (``client.beta.messages``)."""

    def __init__(self, inner: anthropic.Anthropic) -> None:
        self.inner = inner
        self.messages = inner.beta.messages


@dataclass
class BetaSession(Session):
    """A ``Session`` whose every call carries the server edits (summarizer calls too: a client
    that turns context management on for its requests gets it on all of them)."""

    server: ServerEdits = field(default_factory=ServerEdits)

    def create(self, messages: list[dict[str, Any]], *, kind: str = "agent",
               **params: Any) -> Any:
        return super().create(messages, kind=kind, **{**self.server.params(), **params})


@dataclass
class Run:
    """A run and the live objects behind it (for experiments that continue from its state)."""

    result: RunResult
    session: Session


def server_events(response: Any) -> list[Compaction]:
    """Compaction events for what the API did to this request: clearing (R28), compaction
    (R33). Freed tokens are the API's own figures."""
    events: list[Compaction] = []
    managed = getattr(response, "context_management", None)
    for edit in getattr(managed, "applied_edits", None) or []:
        if edit.type == CLEAR:
            events.append({"layer": "server-clear", "tokens_freed": edit.cleared_input_tokens,
                           "trigger": f"API cleared {edit.cleared_tool_uses} tool result(s)"})
    usage = getattr(response, "usage", None)
    for it in getattr(usage, "iterations", None) or []:
        if it.type == "compaction":
            events.append({"layer": "server-compact",
                           "tokens_freed": it.input_tokens - _total_input(usage),
                           "trigger": f"API compacted a {it.input_tokens:,}-token prompt"})
    return events


def _total_input(usage: Any) -> int:
    return (usage.input_tokens + (usage.cache_read_input_tokens or 0)
            + (usage.cache_creation_input_tokens or 0))


def run_layer(layer: ContextLayer | None, scenario: str, *, model: str | None = None,
              seed: int = 0, server: ServerEdits | None = None, label: str = "custom",
              max_turns: int | None = None, simulator: Simulator | None = None,
              brain_options: dict[str, Any] | None = None) -> Run:
    """``runner.run`` for an arbitrary layer and optional server edits, offline; same records,
    same summary, plus one ``summary`` record per server-side compaction (its own iteration, billed
    at the uncached input price: the API reports no cache fields for it)."""
    plan = scenarios.load(scenario)
    model = model or plan.model
    first = load_stage(1)
    sim = simulator or Simulator(responder=Brain(plan, seed=seed, **(brain_options or {})))
    records: list[TurnRecord] = []
    turn = 0

    def observe(kind: str, sent: list[dict[str, Any]], response: Any,
                error: BaseException | None) -> None:
        nonlocal turn
        turn += kind == "agent"
        at = max(turn, 1)
        usage = getattr(response, "usage", None)
        for it in getattr(usage, "iterations", None) or []:
            if it.type == "compaction":
                records.append(record_from_usage(
                    at, "summary", {"input_tokens": it.input_tokens,
                                    "output_tokens": it.output_tokens},
                    model=model, messages_sent=len(sent), estimated_tokens=0,
                    clock=sim.clock.now))
        calls = [tool_call(b.name, b.input) for b in getattr(response, "content", [])
                 if b.type == "tool_use"]
        events = [*session.events, *server_events(response)]
        session.events = []
        records.append(record_from_usage(
            at, "agent" if kind == "agent" else "summary", usage, model=model,
            messages_sent=len(sent),
            estimated_tokens=first.estimate_tokens(sent, session.system, session.tools),
            tool_calls=calls, compactions=events,
            error=error_info(error) if error is not None else None, clock=sim.clock.now))

    def flag_repeat() -> None:
        records[-1].thrash = True

    error: ErrorInfo | None = None
    server = server or ServerEdits()
    client = make_client(sim)
    with scenarios.open_workspace(plan) as workspace:
        session = BetaSession(_BetaClient(client) if server.edits else client, model,
                              [{"type": "text", "text": SYSTEM}], definitions(), workspace.root,
                              observer=observe, server=server, now=lambda: sim.clock.now)
        messages = [scenarios.opening(plan)]
        toolbox = _Metered(workspace, on_repeat=flag_repeat)
        try:
            messages = first.run_loop(session, messages, toolbox, layer=layer,
                                      follow_ups=scenarios.FollowUps(plan),
                                      max_turns=max_turns or 3 * len(plan.steps) + 20)
        except anthropic.APIError as failure:
            error = error_info(failure)
        outcome = scenarios.check(plan, workspace.root)
    summary = RunSummary.from_records(records, stage=label, scenario=scenario,
                                      success=outcome.passed and not error, error=error)
    return Run(RunResult(summary, records, messages, outcome.problems, sim, layer), session)
