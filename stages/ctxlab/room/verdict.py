"""The grader's verdict on a run: did the participant's code fake its tests' outcome?

Decided here, in ``ctxlab room``'s own process, from what the run's pipe carried and from an
independent collection of the same tests against the reference (``expected``): which tests
exist, which of them the workbook's plugin skips or marks xfail, and the code each one is
(``testcode``). A run is tampered when its ``sentinel`` found pytest or the reporting path
patched or a foreign plugin (reported at once or at the end), when the process ended with a
normal exit code before pytest finished its session (``sys.exit``/``os._exit``), when a test
module was skipped at import, when the outcomes do not fit what was collected — a test never
reported, skipped or xfailed at run time, or one that was never collected —, when a test that
passed was not the instructor's code or was never checked by the sentinel, when the pipe
carried what a run does not write (a second result, lines after the end), or when the
submission's source carries pytest machinery (``scan``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..workbook.layout import Stage, repo_root
from .run import Run, graded_args

ALLOWED = {"run": {"passed", "failed"}, "xfail": {"xfailed", "failed"}, "skip": {"skipped"}}
"""The outcomes each kind of collected test can honestly end with."""
NORMAL_EXITS = (0, 1, 5)  # pytest's "the session ran" codes
SHOWN = 3  # test names quoted per finding


@dataclass(frozen=True)
class Collected:
    """The grader's own collection of a stage's tests (``ctxlab.room.collect``)."""

    tests: dict[str, dict[str, str]]  # nodeid → {kind: run | xfail | skip, code: …}
    modules: list[str]  # the libraries the collection loaded


def expected(stage: Stage, select: str | None, tests: list[str] | None = None) -> Collected:
    """The stage's tests collected in this checkout against the reference."""
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
        found = json.loads(out.read_text(encoding="utf-8"))
        return Collected(found["tests"], found["modules"])


def _some(nodeids: list[str]) -> str:
    names = ", ".join(n.split("::")[-1] for n in nodeids[:SHOWN])
    return f"{len(nodeids)} test{'s' * (len(nodeids) != 1)} ({names}" + (
        ", …)" if len(nodeids) > SHOWN else ")")


def findings(run: Run, collected: dict[str, dict[str, str]]) -> list[str]:
    """What was found faked in one run (``collected``: ``Collected.tests``); empty when its
    outcomes can be trusted."""
    found = [f"the pipe to the grader carried {odd}" for odd in dict.fromkeys(run.odd)]
    found += [f for f in dict.fromkeys(run.reported)]
    end = next((e for e in run.events if e.get("event") == "end"), None)
    if end is None:
        if run.status != "time-out" and run.exit_code in NORMAL_EXITS:
            found.append(f"the test process exited with code {run.exit_code} before pytest "
                         "finished its session")
        return found
    found += [str(f) for f in end.get("tampered", []) if str(f) not in found]
    collect = [e for e in run.events if e.get("event") == "collect"]
    found += [f"{e['nodeid']} was skipped at import" for e in collect
              if e.get("outcome") == "skipped"]
    outcome = {r["nodeid"]: r.get("outcome") for r in run.records}
    kinds = {n: c["kind"] for n, c in collected.items()}
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
    passed = [n for n, o in outcome.items() if o in ("passed", "xfailed") and n in kinds]
    unchecked = [n for n in outcome if n not in run.checked]
    if unchecked:
        found.append(f"{_some(unchecked)} ended without the sentinel's check")
    foreign = [n for n in passed if n in run.checked
               and run.checked[n] != collected[n]["code"]]
    if foreign:
        found.append(f"{_some(foreign)} passed running other code than the instructor's test "
                     f"({run.checked[foreign[0]]})")
    return found
