"""Stage 5 against stage 1 on real session logs (issue 49): the CPU a replay costs per request.

A replay at stage 1 does the replay's own work (reading, checking, sizing every request) and no
layer's; at stage 5 the band's look and batches come on top. The ratio of the two, per
request, is what the layer costs on sessions as people ran them (target ≤ 2). Each stage is
replayed once to warm up (the first replay in a process also loads the tokenizer and the
stage's modules) and then ``repeats`` times, the stages in turn, so that both see the same
moments of a shared machine, in this process, as ``ctxlab replay`` does it (what is loaded by
then set aside from the garbage collector, ``ctxlab.startup``); each stage's best CPU time is
kept, as a shared machine only ever adds to it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..replay.discover import display_name, find_logs
from ..replay.group import group
from ..replay.tree import replay_tree
from ..startup import set_aside

STAGES = (1, 5)
RATIO_LIMIT = 2.0  # stage 5's CPU per request against stage 1's


def log_replays(paths: Sequence[Path], *, stages: Sequence[int] = STAGES,
                repeats: int = 3) -> dict[str, Any]:
    """CPU seconds per request of replaying the logs under ``paths`` at each of ``stages``,
    and the last stage's against the first's."""
    trees, _ = group(find_logs(paths))

    def once(stage: int) -> tuple[float, int]:
        start = time.process_time()
        requests = sum(report.totals()["requests"] for tree in trees
                       for report in replay_tree(
                           tree, stage, lambda path: display_name(path, paths))[0])
        return time.process_time() - start, requests

    with set_aside():
        for stage in stages:
            once(stage)
        timings = [[once(stage) for stage in stages] for _ in range(max(1, repeats))]
    rows = []
    for column, stage in enumerate(stages):
        best, requests = min(row[column] for row in timings)
        rows.append({"stage": stage, "requests": requests, "cpu_seconds": best,
                     "cpu_per_request_ms": 1000 * best / max(requests, 1)})
    ratio = rows[-1]["cpu_seconds"] / rows[0]["cpu_seconds"] if rows[0]["cpu_seconds"] else None
    return {"logs": len(trees), "stages": rows, "ratio": ratio, "limit": RATIO_LIMIT,
            "met": None if ratio is None else ratio <= RATIO_LIMIT}
