"""Meta-checks of the workbook (DESIGN §2): stubs in sync, tests with teeth, stage imports."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ctxlab.workbook import manage
from ctxlab.workbook.layout import BY_PACKAGE, STAGES, impl_root, repo_root

SOLVED = [s for s in STAGES if (impl_root("solutions") / s.package).exists()]


def test_committed_stubs_equal_a_fresh_generation() -> None:
    assert manage.check() == []


def test_every_solved_stage_has_exercises_and_hints() -> None:
    from ctxlab.workbook.hints import all_hints

    hints = all_hints()
    for stage in SOLVED:
        _, exercises = manage.fresh(stage)
        assert exercises, stage.package
        for exercise in exercises:
            assert len(hints.get(exercise.number, [])) == 3, exercise.number


@pytest.mark.parametrize("solved", SOLVED, ids=lambda s: s.package)
def test_no_stage_imports_a_later_stage(solved) -> None:
    for path in (impl_root("solutions") / solved.package).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            for name in names:
                imported = BY_PACKAGE.get(name.split(".")[0])
                assert imported is None or imported.number <= solved.number, \
                    f"{path.name} imports {name}"


@pytest.mark.reliability  # every graded test run on stubs: make reliability
def test_every_exercise_test_fails_on_pristine_stubs(tmp_path: Path) -> None:
    """Generate pristine stubs aside, grade them, and demand a NotImplementedError per test."""
    for stage in SOLVED:
        files, _ = manage.fresh(stage)
        for rel, text in files.items():
            target = tmp_path / "stages" / stage.package / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    report = tmp_path / "report.json"
    folders = [f"tests/s{s.number}" for s in SOLVED] + ["tests/ladder"]
    env = dict(os.environ, CTXLAB_STAGES_ROOT=str(tmp_path / "stages"))
    subprocess.run([sys.executable, "-m", "pytest", *folders, "-q", "--impl", "stages",
                    "--ctxlab-report", str(report), "-p", "no:cacheprovider"],
                   cwd=repo_root(), env=env, capture_output=True, check=False)
    results = json.loads(report.read_text())
    graded = [r for r in results if r["exercise"]]
    assert graded, "no exercise tests ran"
    toothless = [r["nodeid"] for r in graded
                 if r["outcome"] != "failed" or not r["not_implemented"]]
    assert toothless == []
    pitfalls = [r for r in results if r["pitfall"]]
    assert pitfalls and all(r["outcome"] == "failed" for r in pitfalls), \
        "a stub's NotImplementedError must be a plain failure, never an expected pitfall"


def test_grading_one_stage_collects_only_what_it_runs() -> None:
    """``pytest --impl stages --stage 2``: stage 2's tests and its ladder cells, nothing else
    collected (other folders are not even imported), nothing skipped."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "--impl",
                           "stages", "--stage", "2"], cwd=repo_root(), capture_output=True,
                          text=True, check=False, env=dict(os.environ, PYTEST_ADDOPTS=""))
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    assert ids and all(i.startswith("tests/s2/") or re.search(r"\[[\w-]+\[2(:[\w-]+)?\]\]$", i)
                       for i in ids), done.stdout[-1500:]
    assert any(i.startswith("tests/ladder/") for i in ids)
    assert not re.search(r"tests/(lab|meta|notebooks|kata|workshop|reliability|peers)/",
                         done.stdout)
