"""How ``ctxlab replay`` grows with the length of a session (issue 16).

A replay checks and sizes the history before every request. Done from scratch each time, that
is the square of the session's length; the replay keeps running sums and checks only what
changed instead (``replay.measure.Sizer``, ``replay.check.Checker``). This times whole replays
of synthetic Claude Code logs (``replay.synthetic``) of growing length through stage 5 and fits
the exponent of time against requests: 1 is linear, 2 quadratic.

The lengths start where even the shortest session fills its window, so every point includes
the layers' work, and the fit uses the CPU time of the best of ``repeats`` replays: on a shared
machine, wall time measures the neighbours too. Wall time is reported beside it.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..replay import replay_file
from ..replay.synthetic import synthetic_log
from .fit import exponent

REQUESTS = (250, 500, 1_000, 2_000)
STAGE = 5


def replay_times(requests: Sequence[int] = REQUESTS, *, seed: int = 0,
                 repeats: int = 2) -> dict[str, Any]:
    """Seconds per whole replay at each length, and the fitted growth exponent."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="ctxlab-bench-") as folder:
        for n in sorted(requests):
            log = synthetic_log(Path(folder) / f"session-{n}.jsonl", n, seed=seed)
            best: tuple[float, float] | None = None
            for _ in range(max(1, repeats)):
                wall, cpu = time.perf_counter(), time.process_time()
                report = replay_file(log, STAGE)
                timing = (time.process_time() - cpu, time.perf_counter() - wall)
                best = timing if best is None else min(best, timing)
            assert best is not None
            rows.append({"requests": len(report.points), "cpu_seconds": best[0],
                         "seconds": best[1], "events": len(report.events),
                         "violations": len(report.violations)})
    growth = exponent([r["requests"] for r in rows], [r["cpu_seconds"] for r in rows])
    return {"stage": STAGE, "sessions": rows, "exponent": growth}
