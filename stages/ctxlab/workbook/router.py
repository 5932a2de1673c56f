"""The implementation switch: one meta-path finder keyed by stage package name (DESIGN §2).

``import s2_truncate`` loads either ``solutions/s2_truncate`` (the reference) or
``stages/s2_truncate`` (the learner's workbook). When one stage is being graded, only that
stage comes from the workbook and every other stage from the reference, so grading stage N
never requires stages below N to be finished; ``chain="mine"`` takes them all from the
workbook. In a copy made by ``ctxlab workbook export`` the handed-out stages have no reference,
so a stage chained from the reference that is missing there comes from the workbook. No module
is copied.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from dataclasses import dataclass
from types import ModuleType

from .layout import BY_PACKAGE, IMPLS, impl_root


@dataclass
class Selection:
    """Which implementation each stage package is loaded from."""

    impl: str = "solutions"
    stage: int | None = None  # the stage under grading; None = every stage from ``impl``
    chain: str = "reference"  # or "mine": earlier/later stages from the workbook as well

    def source(self, package: str) -> str:
        if self.impl == "solutions" or self.stage is None or self.chain == "mine":
            return self.impl
        return "stages" if BY_PACKAGE[package].number == self.stage else "solutions"


class StageFinder(importlib.abc.MetaPathFinder):
    """Finds the top-level stage packages in the selected implementation's folder."""

    def __init__(self) -> None:
        self.selection = Selection(
            impl=os.environ.get("CTXLAB_IMPL", "solutions"),
            stage=int(os.environ["CTXLAB_STAGE"]) if os.environ.get("CTXLAB_STAGE") else None,
            chain=os.environ.get("CTXLAB_CHAIN", "reference"))

    def find_spec(self, fullname: str, path: object = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in BY_PACKAGE:
            return None
        folder = impl_root(self.selection.source(fullname)) / fullname
        init = folder / "__init__.py"
        if not init.exists():  # a handed-out stage of an exported copy has no reference:
            folder = impl_root("stages") / fullname  # it chains the learner's own
            init = folder / "__init__.py"
        if not init.exists():
            return None
        return importlib.util.spec_from_file_location(
            fullname, init, submodule_search_locations=[str(folder)])


FINDER = StageFinder()


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (idempotent)."""
    if FINDER not in sys.meta_path:
        sys.meta_path.insert(0, FINDER)


def use(impl: str = "solutions", stage: int | None = None, chain: str = "reference") -> Selection:
    """Switch implementation; stage modules already imported are dropped so the switch holds."""
    if impl not in IMPLS:
        raise ValueError(f"unknown implementation {impl!r}; choose 'solutions' or 'stages'")
    if chain not in ("reference", "mine"):
        raise ValueError(f"unknown chain {chain!r}; choose 'reference' or 'mine'")
    FINDER.selection = Selection(impl, stage, chain)
    for name in list(sys.modules):
        if name.split(".")[0] in BY_PACKAGE:
            del sys.modules[name]
    install()
    return FINDER.selection
