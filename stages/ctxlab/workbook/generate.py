"""Stub generation: ``solutions/`` is the single source, ``stages/`` is derived (DESIGN §2).

Inside a function of a solution module, an exercise body sits between
``### BEGIN SOLUTION <n.m>`` and ``### END SOLUTION``. The stub keeps everything else (imports,
signatures, types, docstrings) and puts in the region's place a ``raise NotImplementedError``
that names the exercise, the function and the notebook that explains it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from .layout import Stage

BEGIN = re.compile(r"^(?P<indent>\s*)### BEGIN SOLUTION (?P<exercise>\d+\.\d+)\s*$")
END = re.compile(r"^\s*### END SOLUTION\s*$")
HEADER = ("# Generated from solutions/{rel} — your exercise: edit it.\n"
          "# `ctxlab workbook reset {n}` regenerates it (your version is backed up first).\n")


class GenerationError(ValueError):
    """A solution file whose markers cannot be turned into stubs."""


@dataclass(frozen=True)
class Exercise:
    """One exercise region: where it is and what it asks for."""

    number: str
    function: str
    path: str  # relative to the stage package
    line: int


def _enclosing_functions(source: str) -> list[tuple[int, int, str]]:
    tree = ast.parse(source)
    return [(node.lineno, node.end_lineno or node.lineno, node.name) for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def _function_at(functions: list[tuple[int, int, str]], line: int) -> str | None:
    inside = [(start, name) for start, end, name in functions if start <= line <= end]
    return max(inside)[1] if inside else None


def stub_source(source: str, stage: Stage, rel: str) -> tuple[str, list[Exercise]]:
    """The stub text of one solution module and the exercises found in it."""
    functions = _enclosing_functions(source)
    out: list[str] = []
    exercises: list[Exercise] = []
    open_region: re.Match[str] | None = None
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        if open_region is None and (match := BEGIN.match(line)):
            function = _function_at(functions, number)
            if function is None:
                raise GenerationError(f"{rel}:{number}: a solution region must be inside a "
                                      "function")
            exercise = Exercise(match["exercise"], function, rel, number)
            exercises.append(exercise)
            message = (f"Exercise {exercise.number} — {function}(): see "
                       f"notebooks/{stage.notebook}.ipynb")
            out.append(f'{match["indent"]}raise NotImplementedError("{message}")\n')
            open_region = match
        elif open_region is not None:
            if END.match(line):
                open_region = None
        elif END.match(line):
            raise GenerationError(f"{rel}:{number}: END SOLUTION without BEGIN SOLUTION")
        else:
            out.append(line)
    if open_region is not None:
        raise GenerationError(f"{rel}: BEGIN SOLUTION {open_region['exercise']} is never closed")
    if not exercises:
        return source, []
    return HEADER.format(rel=f"{stage.package}/{rel}", n=stage.number) + "".join(out), exercises


def generate(stage: Stage, solution_dir: Path) -> tuple[dict[str, str], list[Exercise]]:
    """Every file of the stage package as it should appear in ``stages/`` (relative paths)."""
    files: dict[str, str] = {}
    exercises: list[Exercise] = []
    for path in sorted(solution_dir.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(solution_dir).as_posix()
        text, found = stub_source(path.read_text(encoding="utf-8"), stage, rel)
        files[rel] = text
        exercises.extend(found)
    return files, exercises
