"""Faults for the matrix (issue 8, item 2): every way a summary call can fail, on a run.

``Bench`` is the simulated agent of a scenario behind a simulator that records every HTTP
request (agent or summary, status) and can fail them:

- ``429``, ``529``, ``500``, ``timeout``, ``empty``: the simulator's own injected faults (R38–R41);
- ``tool call``: the model calls a tool although the summary request allows none (§9.6), as
  behind an Anthropic-compatible endpoint that ignores ``tool_choice``;
- ``prompt too long``: the API rejects the summary request as too long (R12, §9.1).

Faults hit summary requests (``tool_choice: none``) unless ``target="agent"``. The client is
built without SDK retries (``max_retries=0``) unless asked, so every attempt the context layer
makes is one request on the wire and the breaker's bound can be counted exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ctxlab import models, runner, scenarios
from ctxlab.brain import Brain
from ctxlab.runner import RunResult
from ctxlab.sim import ModelView, Reply, Simulator, make_client, wording
from ctxlab.sim.engine import SimResponse
from ctxlab.sim.errors import APIError

FAULTS = ("429", "529", "500", "timeout", "empty", "tool call", "prompt too long")
SIM_FAULTS = {"429": "rate_limit", "529": "overloaded", "500": "server_error",
              "timeout": "timeout", "empty": "empty"}
TRANSIENT = ("429", "529", "500", "timeout")
MODEL = "ctxlab-sim-32k"
NO_WAIT = {"sleep": lambda seconds: None}


COUNT = "/count_tokens"  # the free counting endpoint; stage 5 counts before it acts


def is_summary(body: dict[str, Any]) -> bool:
    return (body.get("tool_choice") or {}).get("type") == "none"


@dataclass
class Wire:
    """One HTTP request as the simulator saw it."""

    summary: bool
    status: int
    body: dict[str, Any] = field(repr=False)


class ToolCaller:
    """A model that answers the first ``count`` summary requests with a tool call (§9.6)."""

    def __init__(self, inner: Any, count: int) -> None:
        self.inner, self.count = inner, count

    def respond(self, view: ModelView) -> Reply:
        if view.tool_choice.get("type") == "none" and self.count > 0:
            self.count -= 1
            return Reply([{"type": "tool_use", "name": "read_file",
                           "input": {"path": "config.py"}}])
        return self.inner.respond(view)

    def summarize(self, view: ModelView, instructions: str | None) -> str:
        return self.inner.summarize(view, instructions)


class Bench:
    """A scenario's agent behind a recording simulator that fails on demand."""

    def __init__(self, scenario: str, *, seed: int = 0) -> None:
        self.scenario = scenario
        self.sim = Simulator(responder=Brain(scenarios.load(scenario), seed=seed))
        self.wire: list[Wire] = []
        self.too_long = 0
        self._target: Callable[[dict[str, Any]], bool] = is_summary
        handle = self.sim.handle

        def record(method: str, path: str, headers: dict[str, str], body: bytes) -> SimResponse:
            if path.split("?", 1)[0].endswith(COUNT):  # a layer counting: not a model call
                return handle(method, path, headers, body)
            data = json.loads(body) if body else {}
            if self.too_long > 0 and self._target(data):
                self.too_long -= 1
                window = models.get(data["model"]).context_window
                error = APIError(400, wording.PROMPT_TOO_LONG.format(total=window + 4_321,
                                                                     window=window))
                answer = SimResponse(400, {"content-type": "application/json"},
                                     json.dumps(error.body("req_ptl")).encode())
            else:
                answer = handle(method, path, headers, body)
            self.wire.append(Wire(is_summary(data), 0 if answer.timeout else answer.status, data))
            return answer

        self.sim.handle = record  # type: ignore[method-assign]

    def inject(self, fault: str, count: int, *, target: str = "summary") -> Bench:
        """Fail the next ``count`` requests of ``target`` ("summary" or "agent") with ``fault``."""
        self._target = is_summary if target == "summary" else (lambda b: not is_summary(b))
        if fault in SIM_FAULTS:
            wanted = target == "summary"
            self.sim.faults.add(SIM_FAULTS[fault], count,
                                when=lambda req: req.max_tokens is not None  # not a count
                                and (req.tool_choice.get("type") == "none") == wanted)
        elif fault == "tool call":
            self.sim.responder = ToolCaller(self.sim.responder, count)
            self.sim.ignore_tool_choice = True  # the real API never lets it through
        elif fault == "prompt too long":
            self.too_long = count
        else:
            raise ValueError(f"unknown fault {fault!r}")
        return self

    def summary_groups(self) -> list[list[Wire]]:
        """The summary requests, grouped by compaction: one group per run of summary requests
        between two agent requests (its PTL and transient retries included)."""
        groups: list[list[Wire]] = []
        previous_agent = True
        for wire in self.wire:
            if wire.summary:
                if previous_agent:
                    groups.append([])
                groups[-1].append(wire)
            previous_agent = not wire.summary
        return groups

    def agent_bodies(self) -> list[dict[str, Any]]:
        return [w.body for w in self.wire if not w.summary]


def layer_options(stage: int) -> dict[str, Any]:
    """Options that make the layer's own backoff instant (its count is what is tested)."""
    return dict(NO_WAIT) if stage == 4 else {"summary": dict(NO_WAIT)}


def offline_client(sdk_retries: int = 0) -> Callable[..., Any]:
    """A replacement for ``runner._client``: the simulator, with ``sdk_retries`` retries."""
    return lambda sim, live: make_client(sim, max_retries=sdk_retries)


def run(bench: Bench, stage: int, *, model: str | None = MODEL, **options: Any) -> RunResult:
    return runner.run(stage, bench.scenario, model=model, simulator=bench.sim,
                      layer_options=layer_options(stage), **options)


def compactor(result: RunResult) -> Any:
    """The stage's ``Compactor`` (stage 4: the layer's; stage 5: the pipeline's summarizer)."""
    layer = result.layer
    return getattr(layer, "compactor", None) or layer.summarize
