"""Taking in a room's stage packages: the grader's own copy of each, its fingerprint, what its
source says (``ctxlab room``).

Every submission's package of every graded stage is copied once into the grader's work area
(``copying.take``: folders and regular files only, under a size limit, names as bytes). A
package that cannot be taken — a link, a named pipe, a device, too big — is that participant's
stage, refused, with the reason; the rest of the room goes on. Packages with the same
fingerprint are graded once, from the first copy: the tests are seeded and deterministic, so
the same files earn the same result.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..workbook.layout import Stage
from .copying import Refused, shown, take
from .scan import plugin_code
from .submissions import Submission


@dataclass
class Taken:
    """One participant's package of one stage, as the grader holds it."""

    mine: Path | None = None  # the grader's copy (holds ``stages/<package>``), shared by equals
    key: tuple[int, str] | None = None  # (stage, fingerprint): which run grades it
    refused: str | None = None  # why it was not taken
    plugin: list[str] = field(default_factory=list)  # pytest machinery in its source


def take_all(submissions: list[Submission], stages: list[Stage],
             work: Path) -> dict[tuple[str, int], Taken]:
    """(participant, stage) → what was taken; copies go below ``work``."""
    taken: dict[tuple[str, int], Taken] = {}
    first: dict[tuple[int, str], Taken] = {}
    for sub in submissions:
        for stage in stages:
            package = sub.stages / stage.package if sub.stages else None
            if package is None or not (package / "__init__.py").is_file():
                taken[(sub.name, stage.number)] = Taken()
                continue
            one = _take(package, work / f"pkg-{len(taken)}", stage)
            if one.key is not None and one.key in first:
                shutil.rmtree(one.mine)  # type: ignore[arg-type]
                one = first[one.key]
            elif one.key is not None:
                first[one.key] = one
            taken[(sub.name, stage.number)] = one
    return taken


def _take(package: Path, mine: Path, stage: Stage) -> Taken:
    for step in (package.parent, package):
        if stat.S_ISLNK(os.lstat(step).st_mode):
            return Taken(refused=f"{shown(step.name)}/ is a link: only files and folders "
                                 "are graded")
    (mine / "stages").mkdir(parents=True)
    try:
        fingerprint = take(package, mine / "stages" / stage.package)
    except (Refused, OSError) as error:
        shutil.rmtree(mine, ignore_errors=True)
        why = error if isinstance(error, Refused) else f"cannot be read: {error.strerror}"
        return Taken(refused=f"stages/{stage.package}: {why}")
    return Taken(mine, (stage.number, fingerprint),
                 plugin=plugin_code(mine / "stages" / stage.package))
