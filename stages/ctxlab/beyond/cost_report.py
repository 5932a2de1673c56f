"""The cache cost model on a real run: when should this conversation compact? (§6.5–§6.7)

``situation_at`` reads a ``Situation`` off a run the way a client could: the long task with no
context management (only stage 5's cache zones) stopped after ``turns`` turns. The static
zone's size is its first 1-hour cache write, the history is the last request minus that, the
growth, output and pace are the medians of the turns so far, and the kept size is measured by
compacting the history for real — stage 5's microcompact (``clear``, no model call) or stage
4's summarizer (``summary``) — and counting the result with ``count_tokens``.

``cache_cost_report`` then prices every choice of when to compact with the cache warm
throughout, and again with a 61-minute pause, and adds the check of the model against the
simulator's own bill (``cold_cache``).
"""

from __future__ import annotations

import dataclasses
import statistics
from typing import Any

from .. import scenarios
from ..peers.cache_only import CacheOnly
from ..report.compare import LARGE_WINDOW_MODEL
from ..runner import load_stage, run
from ..tokens import count_text
from .cache_cost import Situation, miss_vs_hit, plan
from .cold_cache import cold_cache_check
from .summaries import BudgetSession

KINDS = ("clear", "summary")
SUMMARY_WINDOW = 200_000
"""The summarizer keeps a quarter of this verbatim (stage 5's setting), as on a 200K window."""


def _count(session: Any, messages: list[dict[str, Any]]) -> int:
    marked = load_stage(5).mark_newest(messages)
    return session.client.messages.count_tokens(
        model=session.model, system=session.system, tools=session.tools,
        messages=marked).input_tokens


def situation_at(scenario: str = "long-task", *, turns: int = 8,
                 model: str = LARGE_WINDOW_MODEL, kind: str = "clear",
                 horizon: int | None = None, seed: int = 0) -> tuple[Situation, dict[str, Any]]:
    """The situation after ``turns`` turns, and how each figure was measured."""
    if kind not in KINDS:
        raise ValueError(f"unknown compaction kind {kind!r}; choose one of {KINDS}")
    plan_ = scenarios.load(scenario)
    result = run(None, scenario, layer=CacheOnly(), model=model, seed=seed, max_turns=turns,
                 label="cache only")
    session, history = result.session, result.messages
    agent = [r for r in result.records if r.kind == "agent" and r.error is None]
    static = agent[0].cache_write_1h
    sizes = [r.reported_input_tokens for r in agent]
    growth = int(statistics.median(b - a for a, b in zip(sizes, sizes[1:], strict=False)))
    pace = statistics.median(b.clock - a.clock for a, b in zip(agent, agent[1:], strict=False))
    summary_out = prompt = 0
    if kind == "clear":
        kept_history, _ = load_stage(5).microcompact(history, session.tool_names)
    else:
        budget = BudgetSession(session.client, model, session.system, session.tools,
                               session.workspace, budget=SUMMARY_WINDOW)
        compactor = load_stage(4).summarizer(keep_recent=0.25)
        kept_history = compactor(history, budget)
        summary_out = result.simulator.calls[-1].usage["output_tokens"]  # type: ignore
        prompt = count_text(load_stage(4).summary_prompt())
    sit = Situation(
        static_tokens=static, history_tokens=sizes[-1] - static, growth_per_turn=growth,
        output_per_turn=int(statistics.median(r.output_tokens for r in agent)),
        kept_tokens=_count(session, kept_history) - static,
        summary_output_tokens=summary_out, summary_prompt_tokens=prompt,
        horizon=horizon or max(1, len(plan_.steps) + 1 - turns), turn_s=round(pace, 1))
    how = {"scenario": scenario, "model": model, "after_turns": turns, "kind": kind,
           "static": "first request's 1-hour cache write",
           "history": "last request's total input minus the static zone",
           "growth, output, pace": "medians over the turns so far",
           "kept": ("stage 5 microcompact of the history" if kind == "clear" else
                    "stage 4 summary of the history, a quarter of 200K kept verbatim"),
           "horizon": "plan steps left, plus the closing answer"}
    return sit, how


def cache_cost_report(scenario: str = "long-task", *, turns: int = 8,
                      model: str = LARGE_WINDOW_MODEL, kind: str = "clear", pause_at: int = 3,
                      pause_s: float = 3660.0, seed: int = 0) -> dict[str, Any]:
    """Everything ``ctxlab cachecost`` prints (see the module docstring)."""
    sit, how = situation_at(scenario, turns=turns, model=model, kind=kind, seed=seed)
    paused = dataclasses.replace(sit, pauses=((pause_at, pause_s),))
    return {"situation": dataclasses.asdict(sit), "measured": how,
            "miss_vs_hit": miss_vs_hit(200_000, model),
            "plans": {"warm": plan(sit, model).to_dict(),
                      "paused": {**plan(paused, model).to_dict(), "pause_at": pause_at,
                                 "pause_s": pause_s}},
            "check": cold_cache_check(scenario, model=model, seed=seed)}
