"""Points and a score: the grading table beside the reference (``solutions/grading.toml``).

Each exercise and each pitfall-ladder cell is worth the table's points (defaults: the same for
every exercise, the same for every cell). An exercise earns them when it is DONE; a ladder cell
when it shows what the ladder expects on that stage (PITFALL or HOLDS) and every exercise of
that stage is DONE, so untouched stubs score 0. The table lives with
the reference, not in ``stages/``, so a participant's edits cannot change the score.
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass
from typing import Any

from . import grade
from .layout import impl_root

EARNS = {grade.DONE, grade.PITFALL, grade.HOLDS}


@dataclass(frozen=True)
class Table:
    """Points per exercise number and per rung id, with the defaults for the others."""

    exercise: int = 10
    pitfall: int = 5
    exercises: dict[str, int] | None = None
    rungs: dict[str, int] | None = None

    def of_exercise(self, number: str) -> int:
        return (self.exercises or {}).get(number, self.exercise)

    def of_rung(self, rung: str) -> int:
        return (self.rungs or {}).get(rung, self.pitfall)


def load() -> Table:
    """The grading table of the reference (the defaults when it has none)."""
    path = impl_root("solutions") / "grading.toml"
    if not path.exists():
        return Table()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path.name}: {error}") from None
    default = _whole(data.get("default", {}), "default")
    return Table(default.get("exercise", 10), default.get("pitfall", 5),
                 _whole(data.get("exercise", {}), "exercise"),
                 _whole(data.get("pitfall", {}), "pitfall"))


def _whole(table: dict[str, Any], name: str) -> dict[str, int]:
    """``table`` after checking that every value is a whole number of points ≥ 0."""
    for key, value in table.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"grading.toml [{name}] {key} = {value!r}: points are whole "
                             "numbers ≥ 0")
    return dict(table)


def rung_of(row: grade.Row) -> str | None:
    """The rung id of a ladder row (``"pitfall thrash[2] — …"`` → ``"thrash"``)."""
    if not row.item.startswith("pitfall "):
        return None
    return row.item.removeprefix("pitfall ").split("[", 1)[0].split(" ", 1)[0]


def exercise_of(row: grade.Row) -> str | None:
    """The exercise number of an exercise row (``"exercise 2.3 find_safe_cut()"`` → ``"2.3"``)."""
    return row.item.split()[1] if row.item.startswith("exercise ") else None


@dataclass(frozen=True)
class Scored:
    """A grade row with the points it earned out of the points it is worth."""

    stage: int
    item: str
    status: str
    detail: str
    points: int
    max: int
    kind: str  # "exercise" or "pitfall"


def finished(rows: list[grade.Row]) -> set[int]:
    """The stages whose every exercise row is DONE: the only ones whose ladder cells score.
    A cell on the stubs shows what the reference stages chained below it do, not the
    learner's work."""
    stages: dict[int, bool] = {}
    for row in rows:
        if exercise_of(row):
            stages[row.stage] = stages.get(row.stage, True) and row.status == grade.DONE
    return {stage for stage, done in stages.items() if done}


def score(rows: list[grade.Row], table: Table | None = None) -> list[Scored]:
    """Points for each row of ``ctxlab grade``: an exercise when DONE; a ladder cell when it
    shows what the ladder expects and every exercise of its stage is DONE."""
    table = table or load()
    done = finished(rows)
    scored = []
    for row in rows:
        number, rung = exercise_of(row), rung_of(row)
        worth = table.of_exercise(number) if number else table.of_rung(rung or "")
        waits = not number and row.status in EARNS and row.stage not in done
        earned = worth if row.status in EARNS and not waits else 0
        detail = f"{row.detail} (scores once stage {row.stage}'s exercises are all DONE)" \
            if waits else row.detail
        scored.append(Scored(row.stage, row.item, row.status, detail, earned, worth,
                             "exercise" if number else "pitfall"))
    return scored


def report(scored: list[Scored]) -> dict[str, Any]:
    """``ctxlab grade --json``: ``{"total", "max", "exercises": [...]}`` — every graded row,
    exercises and ladder cells (``kind`` tells them apart), with its points."""
    return {"total": sum(s.points for s in scored), "max": sum(s.max for s in scored),
            "exercises": [asdict(s) for s in scored]}
