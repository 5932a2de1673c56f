"""A scenario's workspace: the committed fixture copied, the generated files written (§5).

Large logs and data are generated here from their seed rather than committed, so the fixture
directory stays small and every run sees byte-identical files.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..tools import Workspace
from . import generate
from .schema import GeneratedFile, Scenario


def generated_text(scenario: Scenario, spec: GeneratedFile) -> str:
    """The content of one generated file (deterministic)."""
    seed = f"{scenario.name}:{spec.path}:{spec.seed}"
    return generate.text(spec.kind, spec.chars, seed, spec.markers, spec.place)


def materialize(scenario: Scenario, root: Path) -> list[Path]:
    """Write the scenario's generated files under ``root``; returns their paths."""
    written = []
    for spec in scenario.generated:
        target = root / spec.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(generated_text(scenario, spec), encoding="utf-8")
        written.append(target)
    return written


def open_workspace(scenario: Scenario,
                   target: str | os.PathLike[str] | None = None) -> Workspace:
    """A fresh ``ctxlab.tools.Workspace`` for ``scenario``, generated files included."""
    workspace = Workspace(scenario.source, target)
    materialize(scenario, workspace.root)
    return workspace
