"""``ctxlab workbook reset | solve | check``: keeping ``stages/`` and ``solutions/`` in step.

Nothing of the learner's is ever lost: before ``reset`` or ``solve`` overwrite a stage, its
current files are copied to ``.ctxlab/backups/<stage>-<timestamp>/``.
"""

from __future__ import annotations

import difflib
import shutil
import time
from pathlib import Path

from . import hints, progress
from .generate import BEGIN, END, Exercise, generate
from .layout import STAGES, Stage, handed_out, impl_root, repo_root


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def backup(stage: Stage) -> Path | None:
    """Copy the learner's current stage files aside; returns the backup folder (None if empty)."""
    current = impl_root("stages") / stage.package
    if not current.exists():
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = repo_root() / ".ctxlab" / "backups" / f"{stage.package}-{stamp}"
    suffix = 1
    while target.exists():
        target = target.with_name(f"{stage.package}-{stamp}-{suffix}")
        suffix += 1
    shutil.copytree(current, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def fresh(stage: Stage) -> tuple[dict[str, str], list[Exercise]]:
    """The stubs a fresh generation gives for ``stage``."""
    return generate(stage, impl_root("solutions") / stage.package)


def reset(stage: Stage) -> Path | None:
    """Regenerate a stage's stubs after backing up the learner's files; its exercises' hint
    levels start again from the first, and a failure of one is a first attempt again."""
    saved = backup(stage)
    files, exercises = fresh(stage)
    _replace(stage, files)
    hints.forget({e.number for e in exercises})
    progress.forget(e.number for e in exercises)
    return saved


def reference(stage: Stage) -> dict[str, str]:
    """The reference solution's modules of ``stage`` (relative paths), without the
    ``### BEGIN/END SOLUTION`` lines that only mark where the stubs go."""
    source = impl_root("solutions") / stage.package
    return {p.relative_to(source).as_posix(): _unmarked(p.read_text(encoding="utf-8"))
            for p in sorted(source.rglob("*.py")) if "__pycache__" not in p.parts}


def _unmarked(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True)
                   if not (BEGIN.match(line) or END.match(line)))


def solve(stage: Stage) -> Path | None:
    """Copy the reference solution into the workbook after backing up the learner's files."""
    saved = backup(stage)
    _replace(stage, reference(stage))
    return saved


def _replace(stage: Stage, files: dict[str, str]) -> None:
    folder = impl_root("stages") / stage.package
    for old in folder.rglob("*.py") if folder.exists() else []:
        if old.relative_to(folder).as_posix() not in files:
            old.unlink()
    for rel, text in files.items():
        _write_atomic(folder / rel, text)


def check() -> list[str]:
    """Differences between the committed stubs and a fresh generation (empty = in sync).

    In a copy made by ``ctxlab workbook export``, a stage that is not handed out must hold the
    reference itself."""
    problems: list[str] = []
    exercised = {s.number for s in handed_out()}
    for stage in STAGES:
        if not (impl_root("solutions") / stage.package / "__init__.py").exists():
            continue
        files = fresh(stage)[0] if stage.number in exercised else reference(stage)
        folder = impl_root("stages") / stage.package
        on_disk = {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
                   for p in folder.rglob("*.py") if "__pycache__" not in p.parts} \
            if folder.exists() else {}
        for rel in sorted(set(files) | set(on_disk)):
            if files.get(rel) != on_disk.get(rel):
                diff = difflib.unified_diff(
                    (on_disk.get(rel) or "").splitlines(), (files.get(rel) or "").splitlines(),
                    f"stages/{stage.package}/{rel}", "fresh generation", lineterm="", n=1)
                problems.append("\n".join(list(diff)[:12]))
    return problems
