"""Where things are: the repository root, the stage table, the two implementations (DESIGN §2)."""

from __future__ import annotations

import importlib
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

IMPLS = ("solutions", "stages")


@dataclass(frozen=True)
class Stage:
    """One workbook stage (guide §14)."""

    number: int
    package: str
    title: str
    notebook: str
    sections: str


STAGES: tuple[Stage, ...] = (
    Stage(1, "s1_loop", "raw agent loop with per-turn metrics", "01_loop", "§14.1 §1.2 §2 §9.5"),
    Stage(2, "s2_truncate", "truncation done wrong, then right", "02_truncate",
          "§14.2 §9.2 §12.2"),
    Stage(3, "s3_offload", "recoverable offload of tool results", "03_offload",
          "§14.3 §3.2 §7.4 §2.4"),
    Stage(4, "s4_summarize", "LLM summary, PTL retry, rebuild, breaker", "04_summarize",
          "§14.4 §9 §10 §12.4"),
    Stage(5, "s5_pipeline", "tiered pipeline, cache zones, acceptance", "05_pipeline",
          "§14.5 §5–§8 §12"),
)
BY_PACKAGE = {s.package: s for s in STAGES}


def stage(number: int) -> Stage:
    """The stage numbered ``number``; ValueError naming the valid numbers otherwise."""
    for s in STAGES:
        if s.number == number:
            return s
    raise ValueError(f"unknown stage {number}; stages are 1–{len(STAGES)}")


def load_stage(number: int) -> ModuleType:
    """Import stage ``number``'s package (reference or workbook, per ``ctxlab.use``)."""
    return importlib.import_module(stage(number).package)


def repo_root() -> Path:
    """The workbook checkout: ``$CTXLAB_ROOT``, else two levels above this package."""
    if os.environ.get("CTXLAB_ROOT"):
        return Path(os.environ["CTXLAB_ROOT"]).resolve()
    return Path(__file__).resolve().parents[3]


def impl_root(impl: str) -> Path:
    """The folder holding one implementation's stage packages."""
    if impl not in IMPLS:
        raise ValueError(f"unknown implementation {impl!r}; choose 'solutions' or 'stages'")
    if impl == "stages" and os.environ.get("CTXLAB_STAGES_ROOT"):
        return Path(os.environ["CTXLAB_STAGES_ROOT"]).resolve()
    return repo_root() / impl


def handed_out() -> tuple[Stage, ...]:
    """The stages this checkout hands out as exercises: all of them, or in a copy made by
    ``ctxlab workbook export`` the ones it lists in ``solutions/handout.toml``."""
    path = impl_root("solutions") / "handout.toml"
    if not path.exists():
        return STAGES
    numbers = set(tomllib.loads(path.read_text(encoding="utf-8")).get("exercised", []))
    return tuple(s for s in STAGES if s.number in numbers)
