"""A summarizer outage (guide §9.4): summary requests fail, the agent's own go through.

A summary request is the one sent with ``tool_choice: none`` (stages 4 and 5 ask the summarizer
for text, never for a tool call); during the outage each comes back as an empty reply, a
structural failure that asking again does not cure. The run is a function of its arguments,
so it is shared like a plain run (``ctxlab.runcache``): notebook 04, the stage-4 tests and the
interview kit ask for the same outages.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from . import runcache, runner, scenarios
from .brain import Brain
from .sim import Simulator
from .sim.schema import Request


def summarizer_down(sim: Simulator, failures: int) -> None:
    """The next ``failures`` summary requests ``sim`` receives come back empty."""
    sim.faults.add("empty", count=failures, when=is_summary_request)


def is_summary_request(request: Request) -> bool:
    """Whether ``request`` asks the summarizer: no tool may be called."""
    return request.tool_choice.get("type") == "none"


def run(stage: int, scenario: str, failures: int, *, model: str | None = None, seed: int = 0,
        layer_options: dict[str, Any] | None = None) -> runner.RunResult:
    """``stage`` on ``scenario`` while the first ``failures`` summary requests fail."""

    def computed() -> runner.RunResult:
        sim = Simulator(responder=Brain(scenarios.load(scenario), seed=seed))
        summarizer_down(sim, failures)
        return runner.run(stage, scenario, model=model, seed=seed, simulator=sim,
                          layer_options=layer_options)

    asked = runner.same_run({"stage": stage, "scenario": scenario, "model": model,
                             "seed": seed, "max_turns": None, "layer_options": layer_options,
                             "brain_options": None, "delegation": None})
    return runcache.remembered(["summarizer-outage", failures, sorted(asked.items())], computed,
                               lambda result: dataclasses.replace(result, session=None))
