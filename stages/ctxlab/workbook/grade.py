"""``ctxlab grade``: run a stage's graded tests on the workbook and sort them per exercise.

Each stage is graded in its own pytest process (``--impl stages --stage N``), so a stage's
imports resolve to the learner's package for that stage and to the reference for the others.
Exercise statuses: TODO (the stub still raises NotImplementedError), DONE (every test of the
exercise passes), FAILING (a test fails for another reason, and the exercise has never passed:
a first attempt), REGRESSION (a test fails, and it passed before; ``workbook.progress``; a
grade that is not told what passed before says REGRESSION). Pitfall-ladder rows use the
ladder's words, each with the figure that shows it: PITFALL (the mechanism was observed, as
expected), HOLDS (its trigger occurred and the weakness did not follow), BROKEN (the cell
shows something else than the reference does, or could not be judged).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from .layout import Stage, repo_root
from .manage import fresh

TODO, DONE, PITFALL, REGRESSION = "TODO", "DONE", "PITFALL", "REGRESSION"
FAILING = "FAILING"  # tests fail and the exercise never passed: not a regression
HOLDS, BROKEN = "HOLDS", "BROKEN"
NO_TEST, STUB = "no graded test ran", "still a stub"  # TODO details (grade_cmd translates them)
NEEDS = "needs exercise {} first"  # a test stopped at another exercise's stub
STUB_MESSAGE = re.compile(r"^Exercise (\d+\.\d+) — ")  # a stub's message (workbook.generate)


@dataclass(frozen=True)
class Row:
    """One line of the grade table."""

    stage: int
    item: str  # "exercise 2.3 find_safe_cut()" or "pitfall: <why>"
    status: str
    detail: str


def run_tests(stage: Stage, chain: str = "reference") -> list[dict[str, object]]:
    """Run ``tests/sN`` on the workbook; returns the plugin's per-test records."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        command = [sys.executable, "-m", "pytest", f"tests/s{stage.number}", "tests/ladder", "-q",
                   "--impl", "stages", "--stage", str(stage.number), "--chain", chain,
                   "--ctxlab-report", str(report), "-p", "no:cacheprovider"]
        env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")  # the workbook's plugin
        # comes from pyproject.toml; others (hypothesis's) cost start-up time and grade nothing
        subprocess.run(command, cwd=repo_root(), env=env, capture_output=True, text=True,
                       check=False)
        if not report.exists():
            return []
        return json.loads(report.read_text())


def classify(stage: Stage, results: list[dict[str, object]],
             passed: Collection[str] | None = None) -> list[Row]:
    """Sort test results into one row per exercise and one per pitfall; an exercise whose
    tests fail is FAILING unless it is among those that ``passed`` before (REGRESSION)."""
    _, exercises = fresh(stage)
    rows = []
    for exercise in sorted(exercises, key=lambda e: tuple(map(int, e.number.split(".")))):
        mine = [r for r in results if r["exercise"] == exercise.number]
        name = f"exercise {exercise.number} {exercise.function}()"
        if not mine:
            rows.append(Row(stage.number, name, TODO, NO_TEST))
        elif any(r["not_implemented"] for r in mine):
            rows.append(Row(stage.number, name, TODO, _unfinished(exercise.number,
                                                                  exercise.path, mine)))
        elif all(r["outcome"] == "passed" for r in mine):
            rows.append(Row(stage.number, name, DONE, f"{len(mine)} test(s) pass"))
        else:
            failed = next(r for r in mine if r["outcome"] != "passed")
            broke = passed is None or exercise.number in passed
            rows.append(Row(stage.number, name, REGRESSION if broke else FAILING,
                            f"{failed['nodeid'].split('::')[-1]}: {failed['message']}"))
    for r in results:
        pitfall = r["pitfall"]
        if not pitfall or r["exercise"]:
            continue
        node = str(r["nodeid"])
        cell = node.split("[", 1)[1][:-1] + " " if "[" in node else ""  # "thrash[2]"
        name = f"pitfall {cell}— {pitfall.get('why', '')}"
        evidence = str(r.get("evidence") or r["message"])
        if r["outcome"] == "xfailed":
            rows.append(Row(stage.number, name, PITFALL,
                            f"{evidence} (fixed in stage {pitfall['fixed_in']})"))
        elif r["outcome"] == "passed":
            rows.append(Row(stage.number, name, HOLDS, evidence))
        elif r["outcome"] != "skipped":
            if r["not_implemented"]:
                rows.append(Row(stage.number, name, TODO, str(r["message"])))
                continue
            why = "expected pitfall, but it holds" if r["outcome"] == "xpassed" else "broken"
            rows.append(Row(stage.number, name, BROKEN, f"{why}: {evidence}"))
    return rows


def _unfinished(number: str, path: str, mine: list[dict[str, object]]) -> str:
    """Why an exercise is TODO: its own stub, or the stub of another exercise its tests call
    (``"needs exercise 2.4 first"``)."""
    stubs = {m[1] for r in mine if r["not_implemented"]
             and (m := STUB_MESSAGE.match(str(r["message"])))}
    if number in stubs or not stubs:
        return f"{path}: {STUB}"
    others = sorted(stubs, key=lambda n: tuple(map(int, n.split("."))))
    return NEEDS.format(", ".join(others))
