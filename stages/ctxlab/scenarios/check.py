"""The success check of a scenario, run for real in the workspace (DESIGN §5).

The task succeeded when the check command exits 0 and every file listed as ``unchanged`` still
has its original content; a broken constraint (§12.3) shows up here even when the tests pass.
"""

from __future__ import annotations

import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..tools.command import safe_env
from .schema import Scenario
from .workspace import generated_text

TIMEOUT_S = 60.0


@dataclass(frozen=True)
class CheckResult:
    """Whether the task succeeded, and why not."""

    passed: bool
    problems: tuple[str, ...]
    output: str


def _original(scenario: Scenario, path: str) -> bytes | None:
    committed = scenario.source / path
    if committed.is_file():
        return committed.read_bytes()
    for spec in scenario.generated:
        if spec.path == path:
            return generated_text(scenario, spec).encode("utf-8")
    return None


def check(scenario: Scenario, root: Path) -> CheckResult:
    """Run the scenario's success check in workspace ``root``."""
    proc = subprocess.run(shlex.split(scenario.success.command), cwd=root, env=safe_env(root),
                          capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    output = proc.stdout + proc.stderr
    problems = []
    if proc.returncode != 0:
        problems.append(f"`{scenario.success.command}` exited with {proc.returncode}")
    for path in scenario.success.unchanged:
        current = root / path
        if not current.is_file() or current.read_bytes() != _original(scenario, path):
            problems.append(f"{path} was changed, but the task must leave it as it was")
    return CheckResult(not problems, tuple(problems), output)
