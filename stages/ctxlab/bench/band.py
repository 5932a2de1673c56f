"""Stage 5's band at work, turn by turn (issue 49): the path a long session runs.

Below its trigger stage 5 clears old results in batches whenever a batch repays (§4.6, §6.5),
and it knows each request's size from the last usage plus an estimate of what was added
(§9.5). This runs that path: a seeded history of about ``target`` tokens that reaches the
band's lower edge (the window is declared so that it does), then ``turns`` turns, each a
request through the SDK and the offline simulator (so the next turn has its usage) and a
fresh round. Each turn's ``admit`` + ``prepare`` is timed in CPU seconds (the machine may be
shared). Whatever the band does is counted:
the batches, the ``count_tokens`` calls. The yardstick is one full tokenization of the
history the turns started from, as in ``turns``, in CPU seconds too.

The workspace is a temporary folder that is not declared disposable: every saved copy, link
and log line is fsync'd, as in a user's run, and that is the headline figure. The same turns
are then run once more in a folder declared ``durability.disposable`` (the same writes and
checks, no fsync): ``without_fsync`` is that run's median turn, and ``fsync_share`` the part
of the headline's median that the durable run spent above it (what durability costs the
band; the two medians come from two runs, so it is an estimate).
"""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from ..sim import Simulator, make_client
from ..tools import definitions
from ..tools.durability import disposable
from .history import build
from .turns import MODEL, SYSTEM, BenchSession, tokenize_seconds


def band_turns(stage: ModuleType, target: int, *, turns: int, overhead: int, seed: int = 0,
               repeats: int = 5) -> dict[str, Any]:
    """Per-turn costs of stage 5's band on a history of about ``target`` tokens."""
    durable = _turns(stage, target, turns=turns, overhead=overhead, seed=seed)
    quick = _turns(stage, target, turns=turns, overhead=overhead, seed=seed, sync=False)
    full = tokenize_seconds(durable["history"], repeats, time.process_time)
    layer_s = statistics.median(durable["layer_s"])
    without = statistics.median(quick["layer_s"])
    return {"target": target, "window": durable["window"], "turns": len(durable["layer_s"]),
            "layer_s": layer_s, "full_tokenize_s": full, "overhead_ratio": layer_s / full,
            "without_fsync": {"layer_s": without, "overhead_ratio": without / full,
                              "batches": quick["events"].count("microcompact")},
            "fsync_share": max(0.0, layer_s - without) / layer_s if layer_s else 0.0,
            "batches": durable["events"].count("microcompact"),
            "events": len(durable["events"]), "count_calls": durable["count_calls"],
            "messages": durable["messages"]}


def _turns(stage: ModuleType, target: int, *, turns: int, overhead: int, seed: int,
           sync: bool = True) -> dict[str, Any]:
    """The timed turns on a fresh seeded history, in a temporary workspace that is durable
    (``sync``) or declared disposable."""
    from s5_pipeline.thresholds import BAND  # the selected implementation's

    history = build(target, overhead=overhead, seed=seed)
    sim = Simulator()
    with tempfile.TemporaryDirectory(prefix="ctxlab-bench-") as tmp, \
            contextlib.nullcontext() if sync else disposable(tmp):
        session = BenchSession(make_client(sim), MODEL, list(SYSTEM), definitions(), Path(tmp),
                               now=lambda: sim.clock.now,
                               declared=round(target / BAND[0]))  # at the band's lower edge
        session.tool_names.update(history.tool_names)
        layer = stage.make_layer()
        current = layer.prepare(history.messages, session)
        session.counts = 0
        layer_s = []
        for _ in range(max(turns, 1)):
            session.create(current)
            assistant, results, names = history.rounds.next()
            session.tool_names.update(names)
            start = time.process_time()
            admitted = layer.admit(results, session)
            current = layer.prepare([*current, assistant, {"role": "user", "content": admitted}],
                                    session)
            layer_s.append(time.process_time() - start)
        events = [e["layer"] for e in session.events]
    return {"history": history.messages, "window": session.window, "layer_s": layer_s,
            "events": events, "count_calls": session.counts, "messages": len(current)}
