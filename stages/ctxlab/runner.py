"""Run a stage on a scenario and meter it (DESIGN §6; guide §14 "every turn, print…").

The runner sets the bench up — a fresh workspace, the simulated agent behind the offline API
(or the real API with ``live=True``), the sandboxed tools — then hands the conversation to
stage 1's loop with the chosen stage's context layer, records one ``TurnRecord`` per model call
and checks the task for real in the workspace at the end. ``stage=None`` runs with no context
layer at all ("keep everything"), for the total bill's baseline; ``layer=`` runs any other
object with ``prepare``/``admit`` (a learner's own, a peer library's, the oracle) the same way,
and ``server=`` asks the API to manage the context too (``ctxlab.server_edits``).

Along the way it keeps every block that entered the context (``ctxlab.loss``: the loss
manifest on ``RunResult.loss``). With ``workspace=DIR`` the workspace is kept after the run and
each request's history is journaled in it (``ctxlab.journal``), so ``resume=True`` can continue
a killed run there: the stage, scenario and model must be the run's, the loss manifest comes
out as the uninterrupted run's would, and offloaded files are verified against their checksums.
A run killed before its first request was journaled starts over in its folder.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anthropic

from . import custom, dynamic, runcache, scenarios, subagents
from .brain import Brain
from .brain.delegate import TASK
from .journal import Journal, ResumePoint, begin, resumable
from .loss import LossManifest, Tracker, verify
from .server_edits import BetaSession, ServerEdits, beta_client, compaction_usage, server_events
from .session import Session
from .sim import Simulator, make_client
from .telemetry import (
    ClaudeCodeLog,
    ErrorInfo,
    RunSummary,
    TurnRecord,
    error_info,
    input_hash,
    record_from_usage,
    tool_call,
)
from .tools import LIVE_ALLOWED_PROGRAMS, ToolBox, ToolOutput, to_tool_result
from .workbook.layout import load_stage

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
    session: Session | None = field(default=None, repr=False)  # its final state (tools, ids)
    loss: LossManifest | None = field(default=None, repr=False)  # where removed blocks went
    original: list[dict[str, Any]] = field(default_factory=list, repr=False)  # every block
    children: list[tuple[str, RunResult]] = field(default_factory=list, repr=False)  # §11


class _MeteredToolBox(ToolBox):
    """A ToolBox that remembers each call's result, to flag repeats with unchanged results,
    and hands each result, as the tool returned it, to the loss tracker."""

    def __init__(self, *args: Any, on_repeat: Callable[[], None], tracker: Tracker,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: dict[tuple[str, str], str] = {}
        self.on_repeat = on_repeat
        self.tracker = tracker
        self.pending: list[tuple[str, str, Any]] = []  # (id, name, input) of the last response
        self.calls = 0
        self.changed: list[str] = []  # files edited or written, for the dynamic context
        self.task: Callable[[Mapping[str, Any]], ToolOutput] | None = None  # sub-agents, §11

    def run(self, name: str, tool_input: Mapping[str, Any]) -> ToolOutput:
        output = (self.task(tool_input) if name == TASK and self.task is not None
                  else super().run(name, tool_input))
        self.calls += 1
        path = tool_input.get("path")
        if name in ("edit_file", "write_file") and isinstance(path, str) \
                and path not in self.changed:
            self.changed.append(path)
        key = (name, input_hash(tool_input))
        if self.seen.get(key) == output.content:  # §12.2: same call, same result
            self.on_repeat()
        self.seen[key] = output.content
        match = next((p for p in self.pending if p[1:] == (name, tool_input)), None)
        if match is not None:
            self.pending.remove(match)
            self.tracker.result(to_tool_result(match[0], output))
        return output


class _TrackedFollowUps(scenarios.FollowUps):
    """The scenario's follow-ups, each released one also handed to the loss tracker."""

    def __init__(self, plan: scenarios.Scenario, tracker: Tracker) -> None:
        super().__init__(plan)
        self.tracker = tracker

    def after(self, calls: Iterable[tuple[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
        blocks = super().after(calls)
        if blocks:
            self.tracker.user(blocks)
        return blocks


def _workspace(plan: scenarios.Scenario, target: str | os.PathLike[str] | None, resume: bool,
               header: dict[str, Any]) -> tuple[Any, ResumePoint | None]:
    """A fresh copy deleted after the run; a kept one in ``target``; or ``target`` itself, with
    the point to resume from (None: start over, the run was killed before its first request)."""
    if target is None:
        if resume:
            raise ValueError("resume=True needs the workspace of the run to resume")
        return scenarios.open_workspace(plan), None
    if resume:
        point = resumable(target, header)
        if point is not None:
            return contextlib.nullcontext(SimpleNamespace(root=Path(target).resolve())), point
        logging.getLogger("ctxlab").warning(
            "warning: %s: the run was killed before its first request; starting it over", target)
        for entry in Path(target).iterdir():
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    root = begin(Path(target), header)
    return contextlib.nullcontext(scenarios.open_workspace(plan, root)), None


def _turns(max_turns: int | None, plan: scenarios.Scenario) -> int:
    """The turn limit: ``max_turns``, or by default three per step plus twenty."""
    if max_turns is None:
        return 3 * len(plan.steps) + 20
    if max_turns < 1:
        raise ValueError(f"max_turns must be at least 1, not {max_turns}")
    return max_turns


def same_run(arguments: dict[str, Any]) -> dict[str, Any]:
    """``run``'s arguments written one way for every way of asking for the same run, as
    ``run`` reads them: the scenario's own model named, its default turn limit spelled out, a
    stage's layer option given its default value left out, empty options as none
    (``ctxlab.runcache`` shares the run between them)."""
    plan = scenarios.load(arguments["scenario"])
    same = {**arguments, "model": arguments["model"] or plan.model}
    if same["max_turns"] is None:
        same["max_turns"] = _turns(None, plan)
    if same["stage"] is not None and same["layer_options"]:
        named = inspect.signature(load_stage(same["stage"]).make_layer).parameters
        same["layer_options"] = {name: value for name, value in same["layer_options"].items()
                                 if name not in named or named[name].default != value}
    for name in ("layer_options", "brain_options", "delegation"):
        same[name] = same[name] or None
    return same


def _client(sim: Simulator, live: bool) -> anthropic.Anthropic:
    if not live:
        return make_client(sim)
    if not os.environ.get("ANTHROPIC_API_KEY"):
        raise RuntimeError("--live needs ANTHROPIC_API_KEY in the environment "
                           "(ANTHROPIC_BASE_URL is honoured)")
    return anthropic.Anthropic()


@runcache.shared(same_run)
def run(stage: int | None, scenario: str, *, model: str | None = None, seed: int = 0,
        max_turns: int | None = None, live: bool = False,
        on_record: Callable[[TurnRecord], None] | None = None,
        layer_options: dict[str, Any] | None = None, brain_options: dict[str, Any] | None = None,
        simulator: Simulator | None = None, workspace: str | os.PathLike[str] | None = None,
        resume: bool = False,
        confirm_command: Callable[[list[str]], bool] | None = None,
        export_log: str | os.PathLike[str] | None = None, layer: Any = None,
        server: ServerEdits | None = None, label: str | None = None,
        delegation: dict[str, Any] | None = None,
        child: subagents.Child | None = None) -> RunResult:
    """Run ``stage`` (1–5, or None for no context layer) on ``scenario``.

    ``layer``: with ``stage=None``, run this context layer instead — an object with
    ``prepare``/``admit``, or ``"MODULE:FACTORY"`` (``ctxlab.custom``), called with
    ``layer_options``; ``label`` names the run in its summary. ``server``: the API's own
    clearing or compaction on every request (its compaction iterations are billed too).

    ``workspace``: run in this folder (missing or empty) and keep it afterwards. ``resume``:
    continue the run whose workspace (and journal) ``workspace`` is, with a new layer.
    ``live``: a real model picks the commands, so ``run_command`` runs only the programs of
    ``LIVE_ALLOWED_PROGRAMS``, and any other only when ``confirm_command(argv)`` agrees.
    ``export_log``: also write the conversation to this file as a Claude Code session log
    (``ClaudeCodeLog``), for ``ctxlab calibrate`` and ``ctxlab replay``.
    ``delegation``: the sub-agent tool's options (``subagents.Delegation``: ``enabled``,
    ``stage``, ``handoff``); a run whose plan has a delegable part offers it, and its children
    run through here with ``child`` (their prompt, tools, and the parent's workspace).

    With ``$CTXLAB_RUN_CACHE`` set (``make test`` does), a run its arguments determine is
    computed once and shared between processes (``ctxlab.runcache``).
    """
    plan = scenarios.load(scenario)
    model = model or plan.model
    layer_options, delegating = subagents.split(layer_options, delegation)
    first = load_stage(1)
    module = load_stage(stage) if stage is not None else first
    if stage is not None and layer is not None:
        raise ValueError("pass a stage or a layer, not both")
    spec = layer if isinstance(layer, str) else None  # a child builds its own from it
    if stage is not None:
        layer = module.make_layer(**(layer_options or {}))
    elif isinstance(layer, str):
        label = label or layer
        layer = custom.build(layer, layer_options)
    server = server or ServerEdits()
    children: list[tuple[str, RunResult]] = []
    sim = simulator or Simulator(responder=Brain(plan, seed=seed, **(brain_options or {})))
    records: list[TurnRecord] = []
    turn = 0

    def observe(kind: str, sent: list[dict[str, Any]], response: Any,
                error: BaseException | None) -> None:
        nonlocal turn
        turn += kind == "agent"
        for usage in compaction_usage(response):  # the API's own summary call (R33)
            records.append(record_from_usage(max(turn, 1), "summary", usage, model=model,
                                             messages_sent=len(sent), estimated_tokens=0,
                                             clock=sim.clock.now))
        session.events += server_events(response)
        tracker.events(session.events)
        if kind == "agent":
            tracker.sent(sent)
            if journal is not None:
                journal.sent(sent, tracker)
        if response is not None:
            content = [b.model_dump(exclude_none=True) for b in response.content]
            if export is not None and kind == "agent":
                export.catch_up(tracker.original, sim.clock.now)
                export.response(response.model_dump(exclude_none=True), sim.clock.now)
            tracker.reply(kind, content)
            if kind == "agent":
                toolbox.pending = [(b["id"], b["name"], b["input"]) for b in content
                                   if b["type"] == "tool_use"]
        calls = [tool_call(b.name, b.input) for b in getattr(response, "content", [])
                 if b.type == "tool_use"]
        record = record_from_usage(
            max(turn, 1), "agent" if kind == "agent" else "summary",
            getattr(response, "usage", None), model=model, messages_sent=len(sent),
            estimated_tokens=module.estimate_tokens(sent, session.system, session.tools),
            tool_calls=calls, compactions=session.events,
            error=error_info(error) if error is not None else None, clock=sim.clock.now)
        session.events = []
        if kind == "agent":  # what the layer spent and knew sizing the request (§9.5)
            record.count_calls, session.counts = session.counts, 0
            sized = getattr(layer, "sized", None)
            if isinstance(sized, tuple) and sized[0]:
                record.layer_size, record.layer_size_band = sized
        take = getattr(sim.responder, "take_misses", None)  # the simulated model's (§4)
        record.misses = [asdict(miss) for miss in take()] if take is not None else []
        seen = getattr(sim.responder, "take_changed", None)  # files it saw change (§10.2)
        record.changed = [asdict(change) for change in seen()] if seen is not None else []
        records.append(record)
        if on_record:
            on_record(record)

    def flag_repeat() -> None:
        records[-1].thrash = True

    error: ErrorInfo | None = None
    export = (ClaudeCodeLog(export_log, session=f"{scenario}:{stage}:{seed}")
              if export_log is not None else None)
    header = {"stage": stage if label is None else label, "scenario": scenario, "model": model}
    place, point = (_workspace(plan, workspace, resume, header) if child is None else
                    (contextlib.nullcontext(SimpleNamespace(root=child.root)), None))
    with place as folder:
        session = BetaSession(beta_client(_client(sim, live), server), model,
                              [{"type": "text", "text": child.system if child else SYSTEM}],
                              subagents.tools_for(plan, delegating, child and child.tools),
                              folder.root,
                              observer=observe, server=server,
                              now=time.monotonic if live else lambda: sim.clock.now)
        session.dynamic = lambda: dynamic.render(
            plan.dynamic, time.time() if live else dynamic.EPOCH + sim.clock.now,
            calls=toolbox.calls, changed=toolbox.changed)
        journal = Journal(folder.root) if workspace is not None else None  # kept: resumable
        if point is not None and journal is not None:
            messages = point.history
            journal.start_from(point)
            session.tool_names.update(point.tool_names)
            tracker = Tracker.resumed(point.original, messages, point.summaries, point.why)
            resumed = getattr(sim.responder, "resumed", None)  # the model outlived the crash
            if resumed is not None:
                resumed(point.original)
            for problem in verify(folder.root):
                logging.getLogger("ctxlab").warning(
                    "warning: offloaded before the crash, now lost: %s", problem)
        else:
            messages = [subagents.opening(plan, child)]
            tracker = Tracker(messages)
        follow_ups = _TrackedFollowUps(plan, tracker)
        if point is not None:  # what was released before the crash is already in the history
            scenarios.FollowUps.after(follow_ups, point.calls)
        toolbox = _MeteredToolBox(folder.root, on_repeat=flag_repeat, tracker=tracker,
                                  allowed=LIVE_ALLOWED_PROGRAMS if live else None,
                                  confirm=confirm_command)
        if child is None and subagents.offered(plan, delegating):
            toolbox.task = subagents.starter(
                run, children, delegating, root=folder.root, stage=stage, layer=spec,
                layer_options=layer_options, scenario=scenario, model=model, seed=seed,
                simulator=sim, max_turns=max_turns, live=live, confirm_command=confirm_command)
        try:
            messages = first.run_loop(session, messages, toolbox, layer=layer,
                            follow_ups=follow_ups if child is None else None,
                            max_turns=_turns(max_turns, plan))
        except anthropic.APIError as failure:
            error = error_info(failure)
            # The history is the request that failed, whether or not the loop appended to
            # the list it was given (its contract does not say it must).
            messages = tracker.last_sent
        finally:
            if journal is not None:
                journal.close()
            if export is not None:
                export.close(tracker.original)
        manifest = tracker.manifest(messages, folder.root)
        outcome = (scenarios.check(plan, folder.root) if child is None  # a child: the parent's
                   else scenarios.CheckResult(error is None, (), ""))  # check comes later
    summary = RunSummary.from_records(records, stage=label or stage or KEEP_EVERYTHING,
                                      scenario=scenario, success=outcome.passed and not error,
                                      error=error)
    summary = subagents.bill(summary, children)
    return RunResult(summary, records, messages, outcome.problems, sim, layer, session,
                     manifest, tracker.original, children)
