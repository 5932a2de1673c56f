"""Sub-agents against inline, over seeds (§11.2, §11.3): the figures notebook 07 shows.

Each task runs at stage 5 inline (``--no-subagents``) and with sub-agents on ``SEEDS``; each
run gives its bill (every token and dollar of the lead and its children), the facts the lead
and its children missed in view (§4), whether the task was done, and how many children ran.
Those are 48 runs, too many for ``make test``: notebook 07 reads them from ``DATA``, which
``python -m ctxlab.report.isolation`` writes and ``make reliability`` checks against fresh runs
(``tests/reliability/test_isolation_seeds.py``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..runner import RunResult, run
from ..workbook.layout import repo_root

TASKS = ("isolate-read", "isolate-write", "breadth-survey")
"""The read task, the write task, and the breadth-first survey (Anthropic's research case)."""
MODES: dict[str, dict[str, Any] | None] = {"inline": {"enabled": False}, "sub-agents": None}
SEEDS = tuple(range(8))
STAGE = 5
DATA = Path("notebooks") / "data" / "isolation-seeds.json"


def _misses(result: RunResult) -> int:
    return len(result.summary.misses) + sum(_misses(child) for _, child in result.children)


def figures(result: RunResult) -> dict[str, Any]:
    """One run's row: tokens, dollars, misses, done, children."""
    s = result.summary
    return {"tokens": s.tokens_per_task, "usd": round(s.cost_usd, 6), "misses": _misses(result),
            "done": s.success, "children": len(s.subagents)}


def measure(seeds: tuple[int, ...] = SEEDS,
            progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """``{"stage", "seeds", "tasks": {task: {mode: [row per seed]}}}``."""
    tasks: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for task in TASKS:
        for mode, delegation in MODES.items():
            for seed in seeds:
                if progress:
                    progress(f"{task} {mode} seed {seed}")
                row = figures(run(STAGE, task, seed=seed, delegation=delegation))
                tasks.setdefault(task, {}).setdefault(mode, []).append({"seed": seed, **row})
    return {"stage": STAGE, "seeds": list(seeds), "tasks": tasks}


def load() -> dict[str, Any]:
    """The committed figures (``DATA``)."""
    return json.loads((repo_root() / DATA).read_text(encoding="utf-8"))


def main() -> int:
    """Run every task, mode and seed and write ``DATA``."""
    data = measure(progress=lambda what: print(what, file=sys.stderr, flush=True))
    (repo_root() / DATA).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
