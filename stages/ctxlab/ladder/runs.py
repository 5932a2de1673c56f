"""Runs the rungs share: one per (implementation, stage, options, scenario, model, setup).

The same run answers several rungs (stage 4 on the 32K constraint task shows the cache
collapse, the kept constraint and the absence of orphans), so every run is made once per
process and kept, and shared with other processes when ``$CTXLAB_RUN_CACHE`` is set
(``ctxlab.runcache``); tests and ``ctxlab ladder`` both go through ``get``. A *setup* names what a
rung adds to the simulator (a summarizer outage) and which texts it watches for in each
request the model sees.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import runcache, scenarios
from ..brain import Brain, retrieval
from ..runner import RunResult, run
from ..sim import ModelView, Reply, Simulator
from ..tokens import block_text
from .core import Cell


class Watcher:
    """A responder that answers with the brain and notes, for each request, which of the
    watched texts it could see (and whether it asked for a summary)."""

    def __init__(self, brain: Brain, watch: tuple[str, ...]) -> None:
        self.brain = brain
        self.watch = watch
        self.seen: list[tuple[bool, frozenset[str]]] = []  # (summary request?, texts seen)

    def respond(self, view: ModelView) -> Reply:
        if self.watch:
            text = "\n".join([*(b.get("text", "") for b in view.system),
                              *(block_text(b) for m in view.messages for b in m["content"])])
            self.seen.append((view.tool_choice.get("type") == "none",
                              frozenset(w for w in self.watch if w in text)))
        return self.brain.respond(view)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.brain, name)


@dataclass(frozen=True)
class Setup:
    """What a rung adds to a run: faults for the simulator, texts to watch for."""

    name: str = ""
    faults: Callable[[Simulator], None] | None = None
    watch: tuple[str, ...] = ()


@dataclass
class Run:
    """A finished run and what the watcher saw."""

    result: RunResult
    seen: list[tuple[bool, frozenset[str]]] = field(default_factory=list)


_RUNS: dict[str, Run] = {}


def get(cell: Cell, scenario: str, *, model: str | None = None, setup: Setup = Setup(),
        max_turns: int | None = None, seed: int = 0) -> Run:
    """The run of ``cell`` on ``scenario``, made on first use and kept."""
    key = json.dumps([runcache.sources(), cell.stage,
                      dict(cell.options), cell.layer, scenario, model, setup.name, setup.watch,
                      max_turns, seed, retrieval.enabled()],
                     sort_keys=True, default=str)
    if key in _RUNS:
        return _RUNS[key]
    plain = setup == Setup()  # nothing added, nothing watched: the plain run, which the
    # runner shares with every test and notebook that asks for it (``runner.same_run``)

    def make() -> Run:
        watcher = None if plain else Watcher(Brain(scenarios.load(scenario), seed=seed),
                                             setup.watch)
        sim = None if watcher is None else Simulator(responder=watcher)
        if sim is not None and setup.faults is not None:
            setup.faults(sim)
        result = run(None if cell.layer else cell.stage, scenario, model=model,
                     simulator=sim, max_turns=max_turns, seed=seed,
                     layer_options=dict(cell.options) or None, layer=cell.layer)
        return Run(result, [] if watcher is None else watcher.seen)

    # A setup is named once and for all (its faults are code), so the key names the run:
    # other processes share it (``ctxlab.runcache``), without its client and simulator.
    _RUNS[key] = make() if plain or cell.layer and not runcache.ours(cell.layer) else \
        runcache.remembered(["ladder", key], make, lambda done: Run(
            dataclasses.replace(done.result, session=None, simulator=None), done.seen))
    return _RUNS[key]


def clear() -> None:
    """Forget every kept run (after switching implementation they would be stale)."""
    _RUNS.clear()
