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
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from ..sim import Simulator, make_client
from ..tools import definitions
from .history import build
from .turns import MODEL, SYSTEM, BenchSession, tokenize_seconds


def band_turns(stage: ModuleType, target: int, *, turns: int, overhead: int, seed: int = 0,
               repeats: int = 5) -> dict[str, Any]:
    """Per-turn costs of stage 5's band on a history of about ``target`` tokens."""
    from s5_pipeline.thresholds import BAND  # the selected implementation's

    history = build(target, overhead=overhead, seed=seed)
    sim = Simulator()
    with tempfile.TemporaryDirectory(prefix="ctxlab-bench-") as tmp:
        session = BenchSession(make_client(sim), MODEL, list(SYSTEM), definitions(), Path(tmp),
                               now=lambda: sim.clock.now,
                               declared=round(target / BAND[0]))  # at the band's lower edge
        session.tool_names.update(history.tool_names)
        layer = stage.make_layer()
        current = layer.prepare(history.messages, session)
        session.counts = 0
        layer_s, sizes = [], []
        for _ in range(max(turns, 1)):
            sizes.append(session.create(current).usage.input_tokens)
            assistant, results, names = history.rounds.next()
            session.tool_names.update(names)
            start = time.process_time()
            admitted = layer.admit(results, session)
            current = layer.prepare([*current, assistant, {"role": "user", "content": admitted}],
                                    session)
            layer_s.append(time.process_time() - start)
        events = [e["layer"] for e in session.events]
    full = tokenize_seconds(history.messages, repeats, time.process_time)
    return {"target": target, "window": session.window, "turns": len(layer_s),
            "layer_s": statistics.median(layer_s), "full_tokenize_s": full,
            "overhead_ratio": statistics.median(layer_s) / full,
            "batches": events.count("microcompact"), "events": len(events),
            "count_calls": session.counts, "messages": len(current)}
