"""Acceptance (guide §12.8, §14 stage 5 step 3): every layer proven to fire.

"Built" is not "running" (§7.6: six of seven layers of a mature agent were off by default).
For each layer, a scenario that must make it fire; the check passes only if every layer's
trigger count is above zero and it freed tokens. A layer that did not is *dead*, and the
report says which kind of dead (§14 stage 5 step 3, "没机会触发还是接错了"):

- *no chance*: its trigger was never reached (no result over the offload budget, the history
  never came under pressure) — the drill, or a threshold, is wrong;
- *wired wrong*: its trigger was reached and it freed nothing — the layer itself is broken or
  switched off.

The blocking tier is drilled directly: a history past the blocking mark must be cut locally,
with no model call at all. ``options`` go to every drill's ``make_layer`` (a mis-wired layer,
for the mutation test and the ladder's dead-layer rung).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import models
from ..oracle import per_result_budget
from ..runner import RunResult, load_stage, run
from ..session import Session
from ..sim import Simulator, make_client
from ..tools import definitions

MODEL = "claude-haiku-4-5"
MESSAGES = "/v1/messages"  # a model call; counting (``/v1/messages/count_tokens``) is not
FIRES, NO_CHANCE, WIRED_WRONG = "fires", "dead: no chance", "dead: wired wrong"
PRESSURE = ("snip", "microcompact", "summary", "blocking")


@dataclass(frozen=True)
class Drill:
    """How to force one layer: a scenario and the layer options that leave it no way out."""

    layer: str
    scenario: str
    options: dict[str, Any]
    why: str


DRILLS = (
    Drill("offload", "long-task", {}, "log dumps over the 50K-character budget"),
    Drill("snip", "chat-heavy", {"keep_results": 10_000},
          "a long history of small turns; microcompact, which clears below the trigger first, "
          "disabled"),
    Drill("microcompact", "medium-results", {"keep_last": 10_000},
          "many medium results; snip disabled so clearing must do the work"),
    Drill("summary", "chat-heavy", {"keep_last": 10_000, "keep_results": 10_000},
          "snip and microcompact disabled: only a summary can help"),
)


def reached(drill: Drill, result: RunResult, options: Mapping[str, Any]) -> bool:
    """Whether the drill met the layer's trigger: a result over the offload budget (the one
    given, else §2.4's for the run's window), or a history under pressure (some pressure
    layer ran; each runs after the cheaper ones)."""
    if drill.layer == "offload":
        window = models.get(result.records[0].model).context_window
        budget = options.get("per_result") or per_result_budget(window)
        return any(len(str(b.get("content", ""))) > budget for m in result.original
                   if isinstance(m["content"], list) for b in m["content"]
                   if b.get("type") == "tool_result")
    order = PRESSURE.index(drill.layer)
    return any(e["layer"] in PRESSURE[order:] for r in result.records for e in r.compactions)


def verdict(triggers: int, freed: int, was_reached: bool) -> str:
    if triggers > 0 and freed > 0:
        return FIRES
    return WIRED_WRONG if was_reached else NO_CHANCE


def _blocking_drill(tmp_root: Any, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A history past the blocking mark: must be cut locally, calling no model."""
    sim = Simulator()
    session = Session(make_client(sim), MODEL, [{"type": "text", "text": "Be careful."}],
                      definitions(), tmp_root)
    stage = load_stage(5)
    layer = stage.make_layer(**(options or {}))
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
    triggers, freed = len(events), sum(e["tokens_freed"] for e in events)
    return {"layer": "blocking", "scenario": "drill", "why": "past the blocking mark",
            "triggers": triggers, "freed_tokens": freed,
            "model_calls": sum(c.path == MESSAGES for c in sim.calls),
            "reached": True, "verdict": verdict(triggers, freed, True)}


def drill_row(drill: Drill, *, seed: int = 0,
              options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Run one drill; its row of the report."""
    merged = {**drill.options, **(options or {})}
    return row_of(drill, run(5, drill.scenario, model=MODEL, seed=seed, layer_options=merged),
                  merged)


def row_of(drill: Drill, result: RunResult, merged: Mapping[str, Any]) -> dict[str, Any]:
    """The report row of a drill's run (made with the layer options ``merged``)."""
    summary = result.summary
    triggers = summary.compactions_per_layer.get(drill.layer, 0)
    freed = summary.tokens_freed_per_layer.get(drill.layer, 0)
    was_reached = reached(drill, result, merged)
    return {"layer": drill.layer, "scenario": drill.scenario, "why": drill.why,
            "triggers": triggers, "freed_tokens": freed, "task_success": summary.success,
            "reached": was_reached, "verdict": verdict(triggers, freed, was_reached)}


def accept(tmp_root: Any, *, seed: int = 0, options: Mapping[str, Any] | None = None,
           layers: Sequence[str] | None = None) -> dict[str, Any]:
    """Run every drill (or those of ``layers``); ``passed`` when each layer fired and freed
    tokens; ``dead`` names the layers that did not."""
    rows = [drill_row(d, seed=seed, options=options) for d in DRILLS
            if layers is None or d.layer in layers]
    if layers is None or "blocking" in layers:
        rows.append(_blocking_drill(tmp_root, dict(options or {})))
    dead = [row["layer"] for row in rows if row["verdict"] != FIRES]
    passed = not dead and all(row.get("model_calls", 0) == 0 for row in rows)
    return {"passed": passed, "dead": dead, "layers": rows}


def accept_layer(spec: str, *, seed: int = 0,
                 options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Acceptance for your own layer (``--layer MODULE:FACTORY``): the drills' scenarios, and
    one row per mechanism it reports (``session.report``). A mechanism it declares in a
    ``mechanisms`` attribute that never fired, or one that fired and freed nothing, is dead."""
    from ..custom import build

    declared = tuple(getattr(build(spec, dict(options or {})), "mechanisms", ()))
    found: dict[str, dict[str, Any]] = {}
    for scenario in dict.fromkeys(d.scenario for d in DRILLS):
        result = run(None, scenario, layer=spec, layer_options=dict(options or {}),
                     model=MODEL, seed=seed)
        for name, count in result.summary.compactions_per_layer.items():
            row = found.setdefault(name, {"layer": name, "scenario": scenario, "why":
                                          "reported by the layer", "triggers": 0,
                                          "freed_tokens": 0, "reached": True})
            row["triggers"] += count
            row["freed_tokens"] += result.summary.tokens_freed_per_layer.get(name, 0)
    for name in declared:
        found.setdefault(name, {"layer": name, "scenario": "every drill", "why": "declared in "
                                "mechanisms, never reported", "triggers": 0, "freed_tokens": 0,
                                "reached": False})
    rows = [{**row, "verdict": verdict(row["triggers"], row["freed_tokens"], row["reached"])}
            for row in found.values()]
    dead = [row["layer"] for row in rows if row["verdict"] != FIRES]
    return {"passed": bool(rows) and not dead, "dead": dead, "layers": rows}
