"""The reference run set (issue 49): scenarios × stages × seeds × rot, named in
``fixtures/reference/runs.toml``, with the baseline its runs are held to (``baseline.json``).

A change to how stage 5 sizes its requests must not change what it does: each run of the set
must succeed where it succeeded at the baseline and send within ``tolerance`` of its tokens.
``python -m ctxlab.bench.reference [--jobs N] [--write]`` runs the set (``--write`` makes the
result the baseline) and prints the runs that moved more.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ..scenarios import loader

FOLDER = loader.FIXTURES / "reference"
Run = tuple[str, int, int, str]  # scenario, stage, seed, rot


def reference_set(path: Path = FOLDER / "runs.toml") -> tuple[list[Run], float]:
    """The runs the set names, and its tolerance on tokens."""
    spec = tomllib.loads(path.read_text(encoding="utf-8"))
    names = loader.names() if spec["scenarios"] == "all" else spec["scenarios"]
    runs = [(name, stage, seed, rot) for name in names for stage in spec["stages"]
            for seed in spec["seeds"] for rot in spec["rot"]]
    return runs, float(spec["tolerance"])


def key(run: Run) -> str:
    """The baseline's name of a run: ``scenario/stage/seed/rot``."""
    return "/".join(map(str, run))


def measure(run: Run) -> dict[str, Any]:
    """One run's figures: success, tokens, dollars, count calls, requests."""
    from ..brain.retrieval import switched
    from ..runner import run as run_stage

    scenario, stage, seed, rot = run
    with switched(rot == "on"):
        result = run_stage(stage, scenario, seed=seed)
    summary = result.summary
    agent = [r for r in result.records if r.kind == "agent"]
    return {"success": summary.success, "tokens": summary.tokens_per_task,
            "cost_usd": round(summary.cost_usd, 6), "requests": len(agent),
            "count_calls": summary.count_calls, "size_error": summary.size_error,
            "error": (summary.error or {}).get("message")}


def measure_all(runs: list[Run], jobs: int = 1) -> dict[str, dict[str, Any]]:
    """Every run's figures, by ``key``, in ``jobs`` processes."""
    if jobs <= 1:
        return {key(run): measure(run) for run in runs}
    with ProcessPoolExecutor(jobs) as pool:
        return dict(zip(map(key, runs), pool.map(measure, runs), strict=True))


def moved(now: dict[str, dict[str, Any]], baseline: dict[str, dict[str, Any]],
          tolerance: float) -> list[str]:
    """The runs that finish worse than at the baseline or move more than ``tolerance`` of
    its tokens, one line each."""
    lines = []
    for name, was in baseline.items():
        got = now.get(name)
        if got is None:
            continue
        share = got["tokens"] / was["tokens"] - 1 if was["tokens"] else 0.0
        if (was["success"] and not got["success"]) or abs(share) > tolerance:
            lines.append(f"{name}: success {was['success']} → {got['success']}, tokens "
                         f"{was['tokens']:,} → {got['tokens']:,} ({share:+.2%})")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ctxlab.bench.reference",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--write", action="store_true", help="make this run the baseline")
    parser.add_argument("--out", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    runs, tolerance = reference_set()
    now = measure_all(runs, args.jobs)
    if args.out is not None:
        args.out.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.write:
        (FOLDER / "baseline.json").write_text(json.dumps(now, indent=1, sort_keys=True) + "\n",
                                              encoding="utf-8")
        return 0
    baseline = json.loads((FOLDER / "baseline.json").read_text(encoding="utf-8"))
    lines = moved(now, baseline, tolerance)
    print("\n".join(lines) or f"all {len(now)} runs as at the baseline", file=sys.stdout)
    return 1 if lines else 0


if __name__ == "__main__":
    raise SystemExit(main())
