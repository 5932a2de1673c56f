"""``ctxlab room``: grade a room of participants with the instructor's tests and reference.

Each submission's stage packages are taken into the grader's work area (``intake``) and graded
stage by stage (``run``), in parallel over the cores, each in a jail of its own under a time
limit and resource limits. Identical packages are graded once — the tests are seeded and
deterministic, so the same code earns the same result — which is what makes a room of mostly
untouched later stages cheap. A run that hangs or crashes costs only the exercises of that
stage it did not finish; a package that cannot be taken is refused on its own; the rest of the
room is unaffected. Only this process writes the room's results.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..ladder import LADDER, NA, Cell
from ..workbook import grade, points
from ..workbook.grade import Row
from ..workbook.layout import Stage, repo_root
from ..workbook.manage import fresh
from .intake import take_all
from .run import CRASH, OK, TIMEOUT, Run, grade_copy, make_ref
from .submissions import Submission, discover
from .tamper import edits
from .verdict import Collected, expected, findings

LABEL = {TIMEOUT: "TIME-OUT", CRASH: "CRASH"}
MISSING, TAMPERED, REJECTED = "MISSING", "TAMPERED", "REJECTED"
REFUSED = "refused"  # a stage package the grader would not take (``intake``)


@dataclass
class Participant:
    """One submission's grade."""

    submission: Submission
    scored: list[points.Scored] = field(default_factory=list)
    runs: dict[int, str] = field(default_factory=dict)  # stage → ok | time-out | crash | missing
    seconds: dict[int, float] = field(default_factory=dict)  # stage → its run's time
    ignored_edits: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tampered: list[str] = field(default_factory=list)  # "s1: …" what was found faked

    @property
    def name(self) -> str:
        return self.submission.name

    def points(self, stage: int | None = None) -> tuple[int, int]:
        mine = [s for s in self.scored if stage is None or s.stage == stage]
        return sum(s.points for s in mine), sum(s.max for s in mine)


def grade_room(paths: list[Path], stages: list[Stage], work: Path, *, timeout: float,
               jailed: bool = True, jobs: int | None = None, select: str | None = None,
               track: Callable[[list[Future[Run]]], object] | None = None) -> list[Participant]:
    """Grade every submission of ``paths`` on ``stages``; copies go below ``work``. With
    ``jailed`` (the default) every run is in the jail (``ctxlab.jail``)."""
    submissions = discover(paths, work)
    taken = take_all(submissions, stages, work)
    keys = {t.key: t for t in taken.values() if t.key is not None}
    by_number = {s.number: s for s in stages}
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        collected = {s.number: pool.submit(expected, s, select) for s in stages}
        futures = {key: pool.submit(_grade_one, work / f"ref-{i}", one.mine,
                                    by_number[key[0]], timeout, select, jailed,
                                    collected[key[0]])
                   for i, (key, one) in enumerate(keys.items())}
        if track is not None:
            track(list(futures.values()))
        runs = {key: future.result() for key, future in futures.items()}
        for key, run in runs.items():
            plugin = [f"the submission carries pytest machinery: {p}" for p in keys[key].plugin]
            run.tampered = plugin + findings(run, collected[key[0]].result().tests)
    table = points.load()
    universe = {s.number: _universe(s, [r for k, r in runs.items()  # a tampered run's
                                        if k[0] == s.number and not r.tampered],  # records
                                    every=select is None) for s in stages}  # are not trusted
    room = []
    for sub in submissions:
        person = Participant(sub, notes=list(sub.notes))
        if sub.checkout is not None:
            person.ignored_edits = edits(sub.checkout, repo_root())
        for stage in stages:
            one = taken[(sub.name, stage.number)]
            run = runs[one.key] if one.key else None
            person.runs[stage.number] = (run.status if run else
                                         REFUSED if one.refused else "missing")
            person.seconds[stage.number] = run.seconds if run else 0.0
            rows = _rows(stage, run, universe[stage.number], sub.rejected or one.refused)
            person.scored += points.score(rows, table)
            if run is not None:
                person.outside += [p for p in run.outside if p not in person.outside]
                person.tampered += [f"s{stage.number}: {t}" for t in run.tampered]
        room.append(person)
    return room


def _grade_one(ref: Path, mine: Path, stage: Stage, timeout: float, select: str | None,
               jailed: bool, collected: Future[Collected]) -> Run:
    try:
        ref.mkdir(parents=True)
        make_ref(ref, stage, collected.result().modules)
    except OSError as error:
        return Run([], CRASH, detail=f"could not copy the instructor's tests: {error}")
    return grade_copy(ref, mine, stage, timeout=timeout, select=select, jailed=jailed)


def _graded_rows(stage: Stage, run: Run) -> list[Row]:
    """The grade rows of one run; where it hung or crashed, the exercises it did not finish
    (and the one it was in) carry the run's fate instead."""
    rows = grade.classify(stage, run.records)
    if run.status == OK:
        return rows
    ran = {r["exercise"] for r in run.records if r["exercise"]}
    out = []
    for row in rows:
        number = points.exercise_of(row)
        if number and (number == run.during_exercise or number not in ran):
            row = Row(row.stage, row.item, LABEL[run.status], run.detail)
        out.append(row)
    return out


def _universe(stage: Stage, runs: list[Run], *, every: bool) -> list[str]:
    """The items graded on this stage, in the grade's order: every exercise and every ladder
    cell of the stage — or, with a ``--select``, those that some run tested."""
    _, exercises = fresh(stage)
    tested = {r["exercise"] for run in runs for r in run.records} | {
        run.during_exercise for run in runs}
    names = [f"exercise {e.number} {e.function}()" for e in
             sorted(exercises, key=lambda e: tuple(map(int, e.number.split("."))))
             if every or e.number in tested]
    if every:  # the rows ``grade.classify`` makes of the ladder's cells on this stage
        names += [f"pitfall {rung.id}[{key}] — {rung.section} {rung.why}" for rung in LADDER
                  for key, expected in rung.cells.items()
                  if expected != NA and Cell.parse(key).stage == stage.number]
    for run in runs:
        names += [r.item for r in _graded_rows(stage, run)
                  if r.item.startswith("pitfall ") and r.item not in names]
    return names


def _rows(stage: Stage, run: Run | None, universe: list[str],
          rejected: str | None = None) -> list[Row]:
    if rejected is not None:
        return [Row(stage.number, item, REJECTED, rejected) for item in universe]
    if run is None:
        return [Row(stage.number, item, MISSING, f"no stages/{stage.package} handed in")
                for item in universe]
    if run.tampered:
        return [Row(stage.number, item, TAMPERED, "; ".join(run.tampered)[:300])
                for item in universe]
    mine = {r.item: r for r in _graded_rows(stage, run)}
    fate = LABEL.get(run.status, "NOT RUN")
    return [mine.get(item) or Row(stage.number, item, fate, run.detail or "not run")
            for item in universe]
