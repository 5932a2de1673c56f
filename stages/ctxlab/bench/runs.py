"""Whole runs and the process's memory: what a learner waits for (issue 9).

One full run per stage on a scenario (default ``long-task``) through ``ctxlab.runner.run`` —
agent loop, context layer, simulated agent, tools, telemetry — timed end to end. Peak memory
is the whole process's peak resident set size, as the operating system reports it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import Any

from .. import runcache, runner


def whole_runs(stages: Iterable[int], scenario: str, *, seed: int = 0) -> list[dict[str, Any]]:
    """Wall time, requests and outcome of one run of each stage on ``scenario``."""
    rows = []
    for stage in stages:
        start = time.perf_counter()
        with runcache.computed():
            result = runner.run(stage, scenario, seed=seed)
        rows.append({"stage": stage, "scenario": scenario,
                     "seconds": time.perf_counter() - start, "requests": len(result.records),
                     "turns": result.summary.turns, "success": result.summary.success})
    return rows


def peak_rss_mb() -> float | None:
    """The process's peak resident set size in MB (None where the OS does not say)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10  # bytes vs KiB
