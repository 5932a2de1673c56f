"""The cold-cache argument on the simulated clock, and the cost model checked against the bill
(guide §6.7–§6.8).

Stage 5 runs the long task for a few turns. From that state the next request is sent six
ways — now, after 4 minutes, after 6 minutes (the 5-minute message entry has expired), after
61 minutes (the 1-hour static entry too) — each as it is and with stage 5's microcompact
applied first (old results cleared, no model call). Every request is a ``max_tokens: 0``
pre-warm (API notes §1.10): it is billed for its input only, which is what changes.

Two things come out. The *extra* cost of clearing is large while the cache is warm and zero
once the entry it would invalidate has expired anyway — clearing then only makes the rewrite
smaller (§6.7: "we never force a miss that wouldn't have happened"). And the cost model of
``cache_cost`` predicts each of these bills from what a client knows (the static zone's size
from the first 1-hour write, the last request's size, the idle time, ``count_tokens``).

Stage 5 caches its static zone for 5 minutes until the session first idles past them, and for
an hour from then on (``s5_pipeline.ttl``); this lab asks for the hour from the first request
(``static_ttl="1h"``), as in a session that has already paused once, so that the 61-minute
pause has an entry of its own to outlive.

One simplification shows on short histories: after clearing, the model assumes only the
static zone still hits. An older entry that ends before the first cleared block (the first
request's, say) can also hit while it lives and lies within the 20-block lookback of the new
breakpoint (R18); the prediction is then a little high (``max_error_usd``).
"""

from __future__ import annotations

import copy
from typing import Any

from ..runner import load_stage, run
from ..sim import make_client
from ..telemetry import usage_parts
from .cache_cost import Bill, next_request

PAUSES = (("now", 0.0), ("4 min", 240.0), ("6 min", 360.0), ("61 min", 3660.0))
TURNS = 10


def cold_cache_check(scenario: str = "long-task", *, turns: int = TURNS, seed: int = 0,
                     model: str | None = None) -> dict[str, Any]:
    """Simulated bill vs predicted bill of the next request, per pause, with/without clearing."""
    stage = load_stage(5)
    result = run(None, scenario, layer=stage.make_layer(static_ttl="1h"), model=model, seed=seed,
                 max_turns=turns, label="stage 5")
    session, sim = result.session, result.simulator
    assert sim is not None
    records = [r for r in result.records if r.error is None]
    static = records[0].cache_write_1h
    last = records[-1]
    cached = last.reported_input_tokens - static - last.input_tokens  # the uncached tail goes
    history = result.messages
    cleared, decisions = stage.microcompact(history, session.tool_names)
    spec_id = last.model
    rows = []
    for label, pause in PAUSES:
        for clear in (False, True):
            twin = copy.deepcopy(sim)
            twin.clock.advance(pause)
            client = make_client(twin)
            marked = stage.mark_newest(cleared if clear else history)
            system, wire = session.wire(marked)
            request = {"model": spec_id, "max_tokens": 0, "system": system,
                       "tools": session.tools, "messages": wire}
            total = client.messages.count_tokens(
                **{k: v for k, v in request.items() if k != "max_tokens"}).input_tokens
            volatile = total - client.messages.count_tokens(
                model=spec_id, system=session.system, tools=session.tools,
                messages=marked).input_tokens
            usage = usage_parts(client.messages.create(**request).usage.model_dump())
            actual = Bill(read=usage.cache_read, write_5m=usage.write_5m,
                          write_1h=usage.write_1h, uncached=usage.input_tokens)
            predicted = next_request(static, cached, pause, total, same_prefix=not clear,
                                     uncached=volatile)
            rows.append({"pause": label, "pause_s": pause, "cleared": clear,
                         "request_tokens": total, "volatile_tokens": volatile,
                         "actual": actual.__dict__,
                         "actual_usd": actual.usd(_spec(spec_id)),
                         "predicted_usd": predicted.usd(_spec(spec_id)),
                         "match": actual == predicted})
    extra = {label: _pair(rows, label) for label, _ in PAUSES}
    return {"scenario": scenario, "model": spec_id, "after_turns": turns,
            "static_tokens": static, "history_tokens": cached,
            "cleared_results": len(decisions), "requests": rows,
            "extra_cost_of_clearing_usd": extra,
            "model_matches_simulator": all(r["match"] for r in rows),
            "max_error_usd": max(abs(r["actual_usd"] - r["predicted_usd"]) for r in rows)}


def _spec(model: str) -> Any:
    from .. import models

    return models.get(model)


def _pair(rows: list[dict[str, Any]], label: str) -> float:
    """What clearing adds to the next request's bill after this pause (negative: it saves)."""
    kept, cleared = (next(r["actual_usd"] for r in rows
                          if r["pause"] == label and r["cleared"] is c) for c in (False, True))
    return cleared - kept
