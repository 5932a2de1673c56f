"""Which of the learner's exercises an error came from (DESIGN §2, §6).

An exception whose traceback passes through the learner's workbook (``stages/sN_*``, loaded
by the implementation switch) is the learner's to fix, not a bug of the bench: the CLI names
the function and its exercise in one line. The ``### BEGIN SOLUTION N.M`` regions of the
reference say which function is which exercise (``workbook.generate``).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path

from .layout import BY_PACKAGE, impl_root, repo_root
from .manage import fresh


@dataclass(frozen=True)
class Blame:
    """The learner's frame an error went through: where, and which exercise it is."""

    path: str  # "stages/s1_loop/loop.py": relative to the checkout when inside it
    line: int
    function: str
    exercise: str | None  # "1.1"; None for a function of the learner's own


def _exercises(package: str) -> dict[tuple[str, str], str]:
    """(module path in the package, function) → exercise number, from the reference."""
    try:
        _, found = fresh(BY_PACKAGE[package])
    except (OSError, ValueError):  # no reference here (a handed-out copy): no numbers
        return {}
    return {(e.path, e.function): e.number for e in found}


def blame(error: BaseException) -> Blame | None:
    """The innermost frame of ``error``'s traceback in the learner's workbook that is an
    exercise (else the innermost one there at all); None when the error never went through
    the learner's code (a bug of the bench, or the reference running)."""
    root = impl_root("stages").resolve()
    mine: list[tuple[str, str, int, str]] = []  # (package, module path, line, function)
    for frame in traceback.extract_tb(error.__traceback__):
        path = Path(frame.filename).resolve()
        if not path.is_relative_to(root):
            continue
        package, *rest = path.relative_to(root).parts
        if package in BY_PACKAGE and rest:
            mine.append((package, "/".join(rest), frame.lineno or 0, frame.name))
    if not mine:
        return None
    numbers = {package: _exercises(package) for package in {m[0] for m in mine}}
    named = [m for m in mine if (m[1], m[3]) in numbers[m[0]]]
    package, module, line, function = (named or mine)[-1]
    path = root / package / module
    shown = path.relative_to(repo_root()) if path.is_relative_to(repo_root()) else path
    return Blame(shown.as_posix(), line, function, numbers[package].get((module, function)))


def describe(where: Blame, error: BaseException) -> str:
    """One line: the exercise, the function and its line, then the error itself."""
    message = str(error).splitlines()[0] if str(error) else ""
    exercise = f"exercise {where.exercise}, " if where.exercise else ""
    return (f"in your {exercise}{where.function}() ({where.path}:{where.line}): "
            f"{type(error).__name__}: {message}")
