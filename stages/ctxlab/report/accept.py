"""Acceptance (guide §12.8, §14 stage 5 step 3): every layer proven to fire.

"Built" is not "running" (§7.6: six of seven layers of a mature agent were off by default).
For each layer, a scenario that must make it fire; the check passes only if every layer's
trigger count is above zero and it freed tokens. The blocking tier is drilled directly: a
history past the blocking mark must be cut locally, with no model call at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..runner import load_stage, run
from ..session import Session
from ..sim import Simulator, make_client
from ..tools import definitions

MODEL = "claude-haiku-4-5"
MESSAGES = "/v1/messages"  # a model call; counting (``/v1/messages/count_tokens``) is not


@dataclass(frozen=True)
class Drill:
    """How to force one layer: a scenario and the layer options that leave it no way out."""

    layer: str
    scenario: str
    options: dict[str, Any]
    why: str


DRILLS = (
    Drill("offload", "long-task", {}, "log dumps over the 50K-character budget"),
    Drill("snip", "chat-heavy", {}, "a long history of small turns"),
    Drill("microcompact", "medium-results", {"keep_last": 10_000},
          "many medium results; snip disabled so clearing must do the work"),
    Drill("summary", "chat-heavy", {"keep_last": 10_000, "keep_results": 10_000},
          "snip and microcompact disabled: only a summary can help"),
)


def _blocking_drill(tmp_root: Any) -> dict[str, Any]:
    """A history past the blocking mark: must be cut locally, calling no model."""
    sim = Simulator()
    session = Session(make_client(sim), MODEL, [{"type": "text", "text": "Be careful."}],
                      definitions(), tmp_root)
    stage = load_stage(5)
    layer = stage.make_layer()
    filler = "word " * 8_000
    history: list[dict[str, Any]] = [{"role": "user", "content": "the task"}]
    limit = session.window - 1_000  # past the blocking mark (3,000 left), still a valid request
    n = 0
    while stage.estimate_tokens(history, session.system, session.tools) < limit:
        n += 1
        history.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "search_docs",
             "input": {"query": str(n)}}]})
        history.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": filler}]})
    layer.prepare(history, session)
    events = [e for e in session.events if e["layer"] == "blocking"]
    return {"layer": "blocking", "scenario": "drill", "why": "past the blocking mark",
            "triggers": len(events), "freed_tokens": sum(e["tokens_freed"] for e in events),
            "model_calls": sum(c.path == MESSAGES for c in sim.calls)}


def accept(tmp_root: Any, *, seed: int = 0) -> dict[str, Any]:
    """Run every drill; ``passed`` when each layer fired and freed tokens."""
    layers = []
    for drill in DRILLS:
        summary = run(5, drill.scenario, model=MODEL, seed=seed,
                      layer_options=dict(drill.options)).summary
        layers.append({"layer": drill.layer, "scenario": drill.scenario, "why": drill.why,
                       "triggers": summary.compactions_per_layer.get(drill.layer, 0),
                       "freed_tokens": summary.tokens_freed_per_layer.get(drill.layer, 0),
                       "task_success": summary.success})
    blocking = _blocking_drill(tmp_root)
    layers.append(blocking)
    passed = all(row["triggers"] > 0 and row["freed_tokens"] > 0 for row in layers) and \
        blocking["model_calls"] == 0
    return {"passed": passed, "layers": layers}
