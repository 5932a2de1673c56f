"""The ladder's vocabulary: statuses, cells, verdicts and rungs (DESIGN §2, guide §14).

A *cell* is a stage, or a stage with a naive variant switched on through the same
``--set KEY=VALUE`` options that ``ctxlab run`` and ``ctxlab replay`` take: ``"2"``,
``"3:no-read-exemption"``. A *verdict* is one of four words with the figure that shows it:

- ``pitfall``: the mechanism was observed (not only its outcome);
- ``holds``: the mechanism's trigger occurred at least once and the weakness did not follow;
- ``n/a``: the stage's code lacks the mechanism (the verdict says why);
- ``broken``: the run could not be judged, or the trigger never occurred;
- ``not shown``: a rung judged over seeds (``ladder.paired``) whose paired test did not show
  the difference, with its figures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

PITFALL, HOLDS, NA, BROKEN = "pitfall", "holds", "n/a", "broken"
NOT_SHOWN = "not shown"
STATUSES = (PITFALL, HOLDS, NA, BROKEN, NOT_SHOWN)

VARIANTS: dict[str, dict[str, Any]] = {
    "2:naive": {"naive": True},
    "3:no-read-exemption": {"read_exemption": False},
    "3:no-per-message-budget": {"per_message": None},
    "4:no-ptl-retry": {"ptl_retry": False},
    "4:no-rebuild": {"rebuild": False},
    "4:no-mtime-notes": {"mtime_notes": False},
    "4:free-form": {"template": "free-form"},
    "4:no-breaker": {"breaker": False},
    "5:free-form": {"summary": {"template": "free-form"}},
    "5:clock-in-static-zone": {"dynamic_zone": "static"},
    "5:microcompact-keeps-all": {"keep_results": 10_000},
    "5:no-band": {"band": False},
    "5:free-handoff": {"handoff": "free"},
}
"""Each variant cell and the ``make_layer`` options that make it (``--set`` in the CLI)."""


@dataclass(frozen=True)
class Cell:
    """A stage, or a stage variant: ``Cell.parse("3:no-read-exemption")``."""

    key: str
    stage: int
    options: Mapping[str, Any] = field(default_factory=dict)
    layer: str | None = None  # ``--layer MODULE:FACTORY``: your own layer instead of a stage

    @classmethod
    def parse(cls, key: str) -> Cell:
        stage, _, variant = key.partition(":")
        if not stage.isdigit():
            raise ValueError(f"bad cell {key!r}: a stage number, optionally ':variant'")
        if variant and key not in VARIANTS:
            raise ValueError(f"unknown variant {key!r}; known: {', '.join(VARIANTS)}")
        return cls(key, int(stage), dict(VARIANTS.get(key, {})))

    @property
    def variant(self) -> str:
        return self.key.partition(":")[2]

    def set_flags(self) -> str:
        """The same options as ``--set`` flags, for documentation and evidence."""
        from json import dumps
        return " ".join(f"--set {k}={dumps(v)}" for k, v in self.options.items())


@dataclass(frozen=True)
class Verdict:
    """A cell's status and the evidence for it (always a figure, never empty)."""

    status: str
    evidence: str

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")
        if not self.evidence.strip():
            raise ValueError("a verdict needs evidence")


def pitfall(evidence: str) -> Verdict:
    return Verdict(PITFALL, evidence)


def holds(evidence: str) -> Verdict:
    return Verdict(HOLDS, evidence)


def broken(evidence: str) -> Verdict:
    return Verdict(BROKEN, evidence)


def not_shown(evidence: str) -> Verdict:
    return Verdict(NOT_SHOWN, evidence)


@dataclass(frozen=True)
class Rung:
    """One of the guide's stage pitfalls, judged on each of its cells.

    ``cells``: cell key → the status the reference shows there. ``lacks``: stage → why the
    mechanism does not exist on it (those cells are ``n/a`` without running anything).
    ``judge(cell)`` runs what the cell needs (runs are shared, ``ladder.runs``) and returns
    the verdict.
    """

    id: str
    section: str
    fixed_in: int
    why: str
    cells: Mapping[str, str]
    judge: Callable[[Cell], Verdict]
    lacks: Mapping[int, str] = field(default_factory=dict)

    def verdict(self, key: str) -> Verdict:
        """The verdict of one cell: ``n/a`` where the stage lacks the mechanism, else judged."""
        cell = Cell.parse(key)
        if cell.stage in self.lacks and not cell.variant:
            return Verdict(NA, self.lacks[cell.stage])
        return self.judge(cell)
