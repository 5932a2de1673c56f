"""Every tool call of a run with its result, for the thrash metric (guide §12.2, exercise 2.5).

A run's records keep only fingerprints of the calls, and a truncating stage throws old calls
out of the history, so neither says what each call returned. ``CallRecorder`` sits between the
simulator and the simulated agent and keeps every request the agent saw; ``calls_from_views``
pairs each ``tool_use`` with its ``tool_result`` across all of them, in the order of the calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ctxlab import runner, scenarios
from ctxlab.brain import Brain
from ctxlab.sim import ModelView, Reply, Responder, Simulator

Call = tuple[str, dict[str, Any], str]
"""(tool name, tool input, result text): what ``s2_truncate.thrash_report`` takes."""


@dataclass
class CallRecorder:
    """A Responder that passes every request on to ``inner`` and keeps what it saw."""

    inner: Responder
    views: list[ModelView] = field(default_factory=list)

    def respond(self, view: ModelView) -> Reply:
        self.views.append(view)
        return self.inner.respond(view)

    def summarize(self, view: ModelView, instructions: str | None) -> str:
        return self.inner.summarize(view, instructions)

    def take_misses(self) -> list[Any]:
        """The inner model's misses of facts in view (context rot), for the run's telemetry."""
        take = getattr(self.inner, "take_misses", None)
        return take() if take is not None else []

    def take_changed(self) -> list[Any]:
        """The files the inner model saw change, for the run's telemetry."""
        take = getattr(self.inner, "take_changed", None)
        return take() if take is not None else []


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content", "")
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
    return str(content)


def calls_from_views(views: list[ModelView]) -> list[Call]:
    """Each tool call seen in ``views``, once, in call order, with its result.

    A call whose result never reached the model (the run ended first) is left out.
    """
    uses: dict[str, tuple[str, dict[str, Any]]] = {}
    results: dict[str, str] = {}
    for view in views:
        for message in view.messages:
            for block in message["content"]:
                if block.get("type") == "tool_use" and block["id"] not in uses:
                    uses[block["id"]] = (block["name"], block.get("input", {}))
                elif block.get("type") == "tool_result":
                    results.setdefault(block["tool_use_id"], _result_text(block))
    return [(name, tool_input, results[use_id])
            for use_id, (name, tool_input) in uses.items() if use_id in results]


def run_recorded(stage: int | None, scenario: str, *, seed: int = 0,
                 **options: Any) -> tuple[runner.RunResult, list[Call]]:
    """``runner.run`` with a recording agent: the result and every call with its result."""
    plan = scenarios.load(scenario)
    brain_options = options.pop("brain_options", None) or {}
    recorder = CallRecorder(Brain(plan, seed=seed, **brain_options))
    result = runner.run(stage, scenario, seed=seed, simulator=Simulator(responder=recorder),
                        **options)
    return result, calls_from_views(recorder.views)
