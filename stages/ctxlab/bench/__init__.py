"""``ctxlab bench``: what the context layer costs next to a model call (issue 9).

A context layer runs before every request. If it re-counted the whole history each turn, a
session would cost the square of its length; stage 5 keeps its accounting incremental instead.
This package measures that, side by side in one process:

- ``turns``: at contexts of 10K, 50K, 200K and 1M tokens, the per-turn cost of stage 5's layer
  (``admit`` + ``prepare`` for one new round, steady state; turn after turn, and right after
  each request) against one full tokenization of the same context, and the simulator's time
  per request;
- ``band``: stage 5's band at work on a history at its lower edge (batches, counts, CPU per
  turn);
- ``runs``: one whole run per stage on a scenario, and the process's peak memory;
- ``replay``: whole replays of synthetic session logs of growing length (issue 16);
- ``logs``: stage 5 against stage 1 replaying real session logs, CPU per request (issue 49);
- ``fit``: how each cost grows with the size (the exponent of a power law);
- ``report``: the JSON document, the targets and the tables.

Histories are synthetic and seeded (``history``). Token counts use cl100k_base, a stand-in for
Claude's tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..runner import load_stage
from .band import band_turns
from .logs import log_replays
from .replay import REQUESTS, replay_times
from .report import RATIO_SIZE, assemble, show
from .runs import peak_rss_mb, whole_runs
from .turns import MODEL, measure, overhead_tokens

SIZES = (10_000, 50_000, 200_000, 1_000_000)
TURNS = 15
STAGES = (1, 2, 3, 4, 5)
SCENARIO = "long-task"


def run_bench(sizes: Sequence[int] = SIZES, *, turns: int = TURNS, repeats: int = 5,
              stages: Sequence[int] = STAGES, scenario: str = SCENARIO, seed: int = 0,
              replay_requests: Sequence[int] = REQUESTS, logs: Sequence[Path] = (),
              progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run every measurement and return the report (see ``report.assemble``); ``logs``:
    folders or files of real session logs to replay at stages 1 and 5, if any."""
    note = progress or (lambda _: None)
    stage = load_stage(5)
    overhead = overhead_tokens()
    points = []
    for size in sorted(sizes):
        note(f"measuring {size:,} tokens …")
        points.append(measure(stage, size, turns=turns, overhead=overhead, seed=seed,
                              repeats=repeats))
    runs = []
    for number in stages:
        note(f"running stage {number} on {scenario} …")
        runs += whole_runs([number], scenario, seed=seed)
    band = None
    if RATIO_SIZE in sizes:
        note(f"the band at work at {RATIO_SIZE:,} tokens …")
        band = band_turns(stage, RATIO_SIZE, turns=turns, overhead=overhead, seed=seed,
                          repeats=repeats)
    note("replaying synthetic sessions …")
    replays = replay_times(replay_requests, seed=seed) if replay_requests else None
    real = None
    if logs:
        note("replaying the session logs at stages 1 and 5 …")
        real = log_replays(logs)
    return assemble(points, runs, peak_rss_mb(), model=MODEL, turns=turns, replays=replays,
                    band=band, logs=real)


__all__ = ["REQUESTS", "SCENARIO", "SIZES", "STAGES", "TURNS", "run_bench", "show"]
