"""Grading one stage package in a temporary copy, under the sandbox's limits.

The copy holds the instructor's ``tests/``, ``solutions/``, ``fixtures/``, ``pyproject.toml``,
``README.md`` and, in ``stages/``, only the participant's package of the graded stage: the
other stages come from the reference (DESIGN §2), and nothing the participant changed elsewhere
is used. pytest runs there through ``ctxlab.tools.command.capture`` — the reaper, a scrubbed
environment, a time limit after which every process of the run is killed, a cap on the output
kept — and writes each test's result as it ends (``--ctxlab-log``), so a run that hangs or
crashes still yields what finished, and says which test it was in.
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

from ..tools.command import capture
from ..workbook.layout import Stage, repo_root
from .verdict import graded_args

COPIED = ("tests", "solutions", "fixtures", "pyproject.toml", "README.md")  # stage 5's tests
# compare its runs with the figures the README quotes
SKIP = shutil.ignore_patterns("__pycache__", ".pytest_cache", ".ipynb_checkpoints", "*.pyc")
OUTPUT_CAP = 64 * 1024
OK, TIMEOUT, CRASH = "ok", "time-out", "crash"
PROGRESS = re.compile(r"[.sxXFEf]+(\s+\[\s*\d+%\])?")  # pytest -q's dots: not a message


@dataclass
class Run:
    """What one graded run left: per-test records and how the process ended."""

    records: list[dict[str, Any]]
    status: str = OK  # ok | time-out | crash
    during: str | None = None  # the test that was running when it timed out or crashed
    during_exercise: str | None = None
    detail: str = ""
    outside: list[str] = field(default_factory=list)  # writes outside the copy
    seconds: float = 0.0  # whole-process time of the run
    events: list[dict[str, Any]] = field(default_factory=list)  # the sentinel's lines
    exit_code: int | None = None
    tampered: list[str] = field(default_factory=list)  # set by ``ctxlab.room.verdict``


def make_copy(copy: Path, stage: Stage, package: Path) -> None:
    """Lay out the copy: the instructor's tests and reference, the participant's package."""
    root = repo_root()
    for entry in COPIED:
        source = root / entry
        if source.is_dir():
            shutil.copytree(source, copy / entry, ignore=SKIP)
        elif source.is_file():
            shutil.copy2(source, copy / entry)
    shutil.copytree(package, copy / "stages" / stage.package, ignore=SKIP, symlinks=True)
    for folder in ("tmp", ".room"):
        (copy / folder).mkdir()


def grade_copy(copy: Path, stage: Stage, *, timeout: float, select: str | None,
               tests: list[str] | None = None) -> Run:
    """Run the stage's graded tests and the ladder (or only ``tests``) in ``copy``."""
    log = copy / ".room" / "log.jsonl"
    argv = [sys.executable, "-m", "ctxlab.room.worker", str(copy),
            *graded_args(stage, select, tests), "--impl", "stages", "--ctxlab-log", str(log),
            "--basetemp", str(copy / "tmp" / "pytest")]
    started = time.monotonic()
    captured = capture(argv, copy, timeout=timeout, cap=OUTPUT_CAP)
    seconds = time.monotonic() - started
    lines = _lines(log)
    records = [line for line in lines if line.get("event") == "result"]
    finished = {r["nodeid"] for r in records}
    running = next((line for line in reversed(lines) if line.get("event") == "start"
                    and line["nodeid"] not in finished), None)
    run = Run(records, outside=_outside(copy), seconds=round(seconds, 1),
              events=[line for line in lines if line.get("event") in ("collect", "end")],
              exit_code=None if captured.timed_out else captured.exit_code)
    if running is not None:
        run.during, run.during_exercise = running["nodeid"], running.get("exercise")
    if captured.timed_out:
        run.status, run.detail = TIMEOUT, f"time limit of {timeout:g} s reached"
    elif running is not None or captured.exit_code not in (0, 1, 5):
        said = [line for line in captured.output.decode("utf-8", "replace").splitlines()
                if line.strip() and not PROGRESS.fullmatch(line.strip())]
        run.status = CRASH
        run.detail = f"the test process ended with exit code {captured.exit_code}" + (
            f": {said[-1][:200]}" if said else "")
    if run.during and run.status != OK:
        run.detail += f", during {run.during.split('::')[-1]}"
    return run


def _lines(log: Path) -> list[dict[str, Any]]:
    """The log's JSON objects; anything else in it is not ours and is left out."""
    found = []
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("nodeid", ""), str):
            found.append(value)
    return found


def _outside(copy: Path) -> list[str]:
    path = copy / ".room" / "outside.jsonl"
    if not path.exists():
        return []
    seen = [json.loads(line)["path"] for line in path.read_text().splitlines() if line.strip()]
    return list(dict.fromkeys(seen))
