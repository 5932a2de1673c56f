"""Grading one stage package in the jail, under its limits (``ctxlab room``).

A run sees two folders of the grader's work area and nothing else of the host: a fresh
read-only copy of the instructor's ``tests/``, ``solutions/``, ``fixtures/``, lab bench
(``stages/ctxlab``), ``pyproject.toml`` and ``README.md`` (stage 5's tests compare its runs with
the figures the README quotes) — ``ref`` — and the participant's package as the grader copied
it (``ctxlab.room.copying``), the one writable folder — ``mine`` —, which also holds the run's
temporary files. Other participants' folders, the grader's log and the instructor's checkout
are not in the jail at all. The other stages come from the reference (DESIGN §2).

pytest reports over a pipe (``ctxlab.room.spawn``): each test's result as it ends, so a run
that hangs or crashes still yields what finished and says which test it was in. Only the
grader reads the pipe and only the grader writes the room's results. With ``jailed=False``
(``ctxlab room --no-jail``) the same run is started without the jail.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import jail
from ..tools.command import safe_env
from ..workbook.layout import Stage, repo_root
from .spawn import spawn

COPIED = ("tests", "solutions", "fixtures", "stages/ctxlab", "pyproject.toml", "README.md")
SKIP_NAMES = ("__pycache__", ".pytest_cache", ".ipynb_checkpoints", "*.pyc")
SKIP = shutil.ignore_patterns(*SKIP_NAMES)
OUTPUT_CAP = 64 * 1024
OK, TIMEOUT, CRASH = "ok", "time-out", "crash"
PROGRESS = re.compile(r"[.sxXFEf]+(\s+\[\s*\d+%\])?")  # pytest -q's dots: not a message
GiB, MiB = 1 << 30, 1 << 20
LIMITS = jail.Limits(address_space=4 * GiB, file_size=64 * MiB, cpu_seconds=None,
                     processes=256)
"""A run's limits: address space (a test process maps about 1.3 GB of it), the largest file
it may write, processes (threads count); CPU time is the time limit (``limits``)."""
PRELOAD = "preload.txt"
LATE = ("tampered", "outside")  # what may still come once the session ended
EVENTS = ("start", "result", "collect", "tampered", "checked", "outside", "end")
RESULT = {"nodeid": str, "stage": (int, type(None)), "outcome": str,
          "exercise": (str, type(None)), "pitfall": (dict, type(None)),
          "not_implemented": bool, "message": str, "evidence": str}
"""A result line's fields, as the workbook's plugin writes them (``grade.classify`` reads
them): a line of another shape is not a run's."""


@dataclass
class Run:
    """What one graded run reported through its pipe, and how its process ended."""

    records: list[dict[str, Any]]
    status: str = OK  # ok | time-out | crash
    during: str | None = None  # the test that was running when it timed out or crashed
    during_exercise: str | None = None
    detail: str = ""
    outside: list[str] = field(default_factory=list)  # writes tried outside the copy
    seconds: float = 0.0  # whole-process time of the run
    events: list[dict[str, Any]] = field(default_factory=list)  # collect, end (the first)
    started: list[dict[str, Any]] = field(default_factory=list)  # each test's start line
    checked: dict[str, str | None] = field(default_factory=dict)  # nodeid → the test's code
    reported: list[str] = field(default_factory=list)  # findings sent as they were made
    odd: list[str] = field(default_factory=list)  # what the pipe carried that is not a run's
    exit_code: int | None = None
    tampered: list[str] = field(default_factory=list)  # set by ``ctxlab.room.verdict``


def graded_args(stage: Stage, select: str | None, tests: list[str] | None = None,
                root: Path | None = None) -> list[str]:
    """The test paths and options of a graded run, shared by the run and the collection
    (``tests``: the stage's tests and the ladder unless told; ``root``: the checkout they are
    in and whose ``pyproject.toml`` configures pytest, when it is not the working folder)."""
    paths = tests or [f"tests/s{stage.number}", "tests/ladder"]
    args = [*(str(root / p) for p in paths), "-c", str(root / "pyproject.toml")] if root \
        else paths
    args = [*args, "-q", "-p", "no:cacheprovider", "--stage", str(stage.number),
            "--chain", "reference"]
    return args + (["-k", select] if select else [])


def limits(timeout: float) -> jail.Limits:
    return jail.Limits(LIMITS.address_space, LIMITS.file_size, int(timeout) + 1,
                       LIMITS.processes)


def make_ref(ref: Path, stage: Stage, modules: list[str]) -> None:
    """A fresh copy of the instructor's side of a run (made read-only by the jail), with the
    libraries the run loads first (``PRELOAD``; ``ctxlab.room.collect``). The reference of the
    graded stage is left out (its folder is there, empty, for what asks which stages are built):
    the run chains only the other stages', and a participant's code has no business reading
    the answers."""
    root = repo_root()
    (ref / PRELOAD).write_text("\n".join(modules), encoding="utf-8")
    for entry in COPIED:
        source = root / entry
        if entry == "solutions":  # the graded stage's folder stays, empty: it is "built"
            shutil.copytree(source, ref / entry, ignore=shutil.ignore_patterns(
                *SKIP_NAMES, stage.package))
            (ref / entry / stage.package).mkdir()
        elif source.is_dir():
            shutil.copytree(source, ref / entry, ignore=SKIP)
        elif source.is_file():
            shutil.copy2(source, ref / entry)


def grade_copy(ref: Path, mine: Path, stage: Stage, *, timeout: float, select: str | None,
               jailed: bool, tests: list[str] | None = None) -> Run:
    """Run the stage's graded tests and the ladder (or only ``tests``) on ``mine``, which
    holds ``stages/<package>``, against ``ref``."""
    (mine / "tmp").mkdir(exist_ok=True)
    env = {**safe_env(mine / "tmp"), "CTXLAB_ROOT": str(ref),
           "CTXLAB_STAGES_ROOT": str(mine / "stages"), "PYTHONPATH": str(ref / "stages"),
           "TMPDIR": str(mine / "tmp"), "MPLCONFIGDIR": str(mine / "tmp" / "mpl"),
           "MPLBACKEND": "Agg", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # the workbook's
    # plugin comes from pyproject.toml; third-party ones only cost start-up time
    argv = [sys.executable, "-m", "ctxlab.room.worker", "{fd}", str(mine), str(ref / PRELOAD),
            *graded_args(stage, select, tests, ref), "--impl", "stages", "--ctxlab-log-fd", "{fd}",
            "--basetemp", str(mine / "tmp" / "pytest")]
    if jailed:
        argv = jail.wrap(argv, writable=mine, readonly=[ref], limits=limits(timeout),
                         cwd=mine, env=env)
    started = time.monotonic()
    done = spawn(argv, cwd=mine, env=None if jailed else env, timeout=timeout, cap=OUTPUT_CAP)
    run = read_pipe(done.log, flooded=done.flooded)
    run.seconds = round(time.monotonic() - started, 1)
    run.exit_code = None if done.timed_out else done.exit_code
    finished = {r["nodeid"] for r in run.records}
    running = next((line for line in reversed(run.started) if line["nodeid"] not in finished),
                   None)
    if running is not None:
        run.during, run.during_exercise = running["nodeid"], running.get("exercise")
    if done.timed_out:
        run.status, run.detail = TIMEOUT, f"time limit of {timeout:g} s reached"
    elif running is not None or done.exit_code not in (0, 1, 5):
        said = [line for line in done.output.decode("utf-8", "replace").splitlines()
                if line.strip() and not PROGRESS.fullmatch(line.strip())]
        run.status = CRASH
        run.detail = f"the test process ended with exit code {done.exit_code}" + (
            f": {said[-1][:200]}" if said else "")
    if run.during and run.status != OK:
        run.detail += f", during {run.during.split('::')[-1]}"
    return run


def read_pipe(data: bytes, *, flooded: bool = False) -> Run:
    """The run as its pipe tells it: tests up to the first ``end`` (writes tried and findings
    after it too: the process may still exit); a second result for a test, a test's line after
    the end, or a line that is not a run's is kept as ``odd``."""
    run = Run([])
    seen: set[str] = set()
    late, ended = 0, False
    for raw in data.splitlines():
        line = _parse(raw)
        if line is None:
            run.odd.append("a line that is not a run's")
            continue
        event = line["event"]
        if ended and event not in LATE:
            late += 1
        elif event == "end":
            run.events.append(line)
            ended = True
        elif event == "result":
            if line["nodeid"] in seen:
                run.odd.append(f"a second result for {line['nodeid'].split('::')[-1]}")
                continue
            seen.add(line["nodeid"])
            run.records.append(line)
        elif event == "start":
            run.started.append(line)
        elif event == "collect":
            run.events.append(line)
        elif event == "checked":
            run.checked[line["nodeid"]] = line.get("code")
        elif event == "tampered":
            run.reported.append(str(line.get("finding")))
        elif event == "outside" and line.get("path") not in run.outside:
            run.outside.append(str(line.get("path")))
    if late:
        run.odd.append(f"{late} line{'s' * (late != 1)} after the session ended")
    if flooded:
        run.odd.append("more than the pipe's limit")
    return run


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        line = json.loads(raw)
    except ValueError:
        return None
    if not (isinstance(line, dict) and line.get("event") in EVENTS
            and isinstance(line.get("nodeid", ""), str)):
        return None
    if line["event"] in ("start", "result", "checked") and "nodeid" not in line:
        return None
    if line["event"] == "result" and not all(
            isinstance(line.get(key), kinds) for key, kinds in RESULT.items()):
        return None
    pitfall = line.get("pitfall")
    if pitfall is not None and not (isinstance(pitfall.get("fixed_in"), int)
                                    and isinstance(pitfall.get("why", ""), str)):
        return None
    return line
