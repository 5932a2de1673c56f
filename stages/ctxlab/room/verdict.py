"""The grader's verdict on a run: did the participant's code fake its tests' outcome?

Decided here, in ``ctxlab room``'s own process, from what the run's log says and from an
independent collection of the same tests against the reference (``expected``): which tests
exist, and which of them the workbook's plugin skips or marks xfail. A run is tampered when
its ``sentinel`` found pytest patched or a foreign plugin, when the process ended with a
normal exit code before pytest finished its session (``sys.exit``/``os._exit``), when a test
module was skipped at import, or when the outcomes do not fit what was collected — a test
never reported, skipped or xfailed at run time, or one that was never collected.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..workbook.layout import Stage, repo_root

ALLOWED = {"run": {"passed", "failed"}, "xfail": {"xfailed", "failed"}, "skip": {"skipped"}}
"""The outcomes each kind of collected test can honestly end with."""
NORMAL_EXITS = (0, 1, 5)  # pytest's "the session ran" codes
SHOWN = 3  # test names quoted per finding


def graded_args(stage: Stage, select: str | None, tests: list[str] | None = None) -> list[str]:
    """The test paths and options of a graded run, shared by the run and the collection
    (``tests``: the stage's tests and the ladder unless told)."""
    args = [*(tests or [f"tests/s{stage.number}", "tests/ladder"]), "-q", "-p",
            "no:cacheprovider", "--stage", str(stage.number), "--chain", "reference"]
    return args + (["-k", select] if select else [])


def expected(stage: Stage, select: str | None,
             tests: list[str] | None = None) -> dict[str, str]:
    """nodeid → run | xfail | skip, collected in this checkout against the reference."""
    with tempfile.TemporaryDirectory(prefix="ctxlab-collect-") as folder:
        out = Path(folder) / "collected.json"
        done = subprocess.run(
            [sys.executable, "-m", "ctxlab.room.collect", str(out),
             *graded_args(stage, select, tests), "--impl", "solutions", "--collect-only"],
            cwd=repo_root(), capture_output=True, text=True, check=False,
            env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
        if not out.exists():
            raise RuntimeError(f"collecting tests/s{stage.number} failed: "
                               f"{(done.stdout + done.stderr).strip()[-300:]}")
        return json.loads(out.read_text(encoding="utf-8"))


def _some(nodeids: list[str]) -> str:
    names = ", ".join(n.split("::")[-1] for n in nodeids[:SHOWN])
    return f"{len(nodeids)} test{'s' * (len(nodeids) != 1)} ({names}" + (
        ", …)" if len(nodeids) > SHOWN else ")")


def findings(events: list[dict[str, Any]], records: list[dict[str, Any]],
             exit_code: int | None, timed_out: bool, kinds: dict[str, str]) -> list[str]:
    """What was found faked in one run; empty when its outcomes can be trusted."""
    end = next((e for e in events if e.get("event") == "end"), None)
    found: list[str] = []
    if end is None:
        if not timed_out and exit_code in NORMAL_EXITS:
            found.append(f"the test process exited with code {exit_code} before pytest "
                         "finished its session")
        return found
    found += [str(f) for f in end.get("tampered", [])]
    collect = [e for e in events if e.get("event") == "collect"]
    found += [f"{e['nodeid']} was skipped at import" for e in collect
              if e.get("outcome") == "skipped"]
    outcome = {r["nodeid"]: r["outcome"] for r in records}
    unknown = [n for n in outcome if n not in kinds]
    wrong = {kind: [n for n, k in kinds.items() if k == kind and n in outcome
                    and outcome[n] not in ALLOWED[kind]] for kind in ALLOWED}
    if unknown:
        found.append(f"{_some(unknown)} reported that the tests do not hold")
    if wrong["run"]:
        found.append(f"{_some(wrong['run'])} skipped or xfailed at run time")
    if wrong["xfail"] or wrong["skip"]:
        found.append(f"{_some(wrong['xfail'] + wrong['skip'])} ended otherwise than marked")
    broken = any(e.get("outcome") == "failed" for e in collect)  # an honest import error
    missing = [n for n in kinds if n not in outcome]
    if missing and not broken:
        found.append(f"{_some(missing)} never reported")
    return found
