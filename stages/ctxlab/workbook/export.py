"""``ctxlab workbook export DIR --exercises 2,3``: the copy an instructor hands out.

The handed-out stages get fresh stubs in ``stages/`` and keep only their hints in
``solutions/`` (their reference is left out); every other stage gets the reference in both
places, so grading a handed-out stage chains the reference for the rest (DESIGN §2). Tests,
notebooks, fixtures, docs and the lab bench come along; ``solutions/handout.toml`` records which
stages are handed out (``ctxlab grade`` grades those, ``ctxlab workbook check`` expects the
reference in the others) and ``.github/workflows/classroom.yml`` grades them on GitHub Classroom.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from . import classroom, points
from .layout import STAGES, Stage, repo_root
from .manage import fresh, reference

ENTRIES = ("README.md", "README.zh-CN.md", "AGENTS.md", "CLAUDE.md", "LICENSE", "Makefile",
           "pyproject.toml", ".gitignore", "stages", "solutions", "notebooks", "tests",
           "fixtures", "docs")
"""What a handed-out copy holds (everything else — venvs, runs, caches, ``.git`` — stays)."""
SKIP = shutil.ignore_patterns("__pycache__", "*.egg-info", ".ipynb_checkpoints", "*.pyc")


def export(target: Path, exercised: Sequence[Stage]) -> list[str]:
    """Write the copy into ``target`` (new or empty); returns what was done, line by line."""
    root = repo_root()
    target = target.resolve()
    if any(target.is_relative_to((root / e).resolve()) for e in ENTRIES):
        raise ValueError(f"{target} is inside a folder that is being copied; choose a folder "
                         "outside the checkout's stages/, tests/, docs/ …")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ValueError(f"{target} exists and is not an empty folder")
    target.mkdir(parents=True, exist_ok=True)
    for entry in ENTRIES:
        source = root / entry
        if source.is_dir():
            shutil.copytree(source, target / entry, ignore=SKIP, symlinks=True)
        elif source.is_file():
            shutil.copy2(source, target / entry)
    handed = {s.number for s in exercised}
    done = []
    for stage in STAGES:
        if not (root / "solutions" / stage.package).exists():
            continue
        if stage.number in handed:
            files, _ = fresh(stage)
            _write_package(target / "stages" / stage.package, files)
            for module in (target / "solutions" / stage.package).rglob("*.py"):
                module.unlink()
            done.append(f"stage {stage.number}: stubs to write; reference left out (hints kept)")
        else:
            _write_package(target / "stages" / stage.package, reference(stage))
            done.append(f"stage {stage.number}: the reference, in stages/ and solutions/")
    numbers = ", ".join(str(n) for n in sorted(handed))
    (target / "solutions" / "handout.toml").write_text(
        "# Written by `ctxlab workbook export`: the stages handed out as exercises. The other\n"
        "# stages hold the reference in stages/ as well as solutions/.\n"
        f"exercised = [{numbers}]\n", encoding="utf-8")
    workflow = target / ".github" / "workflows" / "classroom.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(classroom.workflow(exercised, points.load()), encoding="utf-8")
    done.append("GitHub Classroom autograding: .github/workflows/classroom.yml")
    return done


def _write_package(folder: Path, files: dict[str, str]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
