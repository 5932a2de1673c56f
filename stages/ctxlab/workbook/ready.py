"""What runs now: each stage tried on the smallest task, the exercises it still needs named.

A stage runs on the reference where the checkout has it; in a copy made by ``ctxlab workbook
export`` a handed-out stage is the participant's own, and so is every stage that builds on it
(docs/workshop.md, "What to hand out"). A stage needs an exercise when its run stops at that
exercise's stub, or when a stub is left in the participant's own code that the run loaded (a
small task may not reach every layer: stage 2 never cuts on ``bugfix-small``).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from .. import runner
from .layout import BY_PACKAGE, STAGES, impl_root
from .router import FINDER, use

TASK = "bugfix-small"
STUB = re.compile(r'raise NotImplementedError\("Exercise (\d+\.\d+) — ')  # workbook.generate


@dataclass(frozen=True)
class Readiness:
    """One stage: whose code it runs, and the exercises it needs first (none: it runs)."""

    stage: int
    own: bool  # the participant's code (no reference of this stage in the checkout)
    missing: tuple[str, ...]

    def line(self) -> str:
        if not self.missing:
            whose = "your code" if self.own else "the reference"
            return f"stage {self.stage}: runs now ({whose}): ctxlab run --stage {self.stage}"
        return f"stage {self.stage}: needs exercise {', '.join(self.missing)} first"


def readiness() -> list[Readiness]:
    """Every stage, run once on ``TASK`` with the current selection."""
    return [_try(stage.number, stage.package) for stage in STAGES]


def _try(number: int, package: str) -> Readiness:
    selection = FINDER.selection
    use(selection.impl, selection.stage, selection.chain)  # no stage module loaded yet
    missing: set[str] = set()
    try:
        runner.run(number, TASK)
    except NotImplementedError as error:
        missing.update(re.findall(r"^Exercise (\d+\.\d+)", str(error)))
    loaded = {name.split(".")[0] for name in sys.modules if name.split(".")[0] in BY_PACKAGE}
    for name in loaded:
        if _own(name):
            for path in (impl_root("stages") / name).rglob("*.py"):
                missing.update(STUB.findall(path.read_text(encoding="utf-8")))
    use(selection.impl, selection.stage, selection.chain)
    order = sorted(missing, key=lambda n: tuple(map(int, n.split("."))))
    return Readiness(number, _own(package), tuple(order))


def _own(package: str) -> bool:
    return not (impl_root("solutions") / package / "__init__.py").exists()
