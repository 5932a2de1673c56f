"""Leave one source out: would a habit measured on the other sources hold on this one?
(DESIGN §4: the habits are checked on sessions the project has never seen.)

Logs come from a few sources (people, projects, tools), and a source has habits of its own.
A log's source is the part of its file name before ``__`` (``m-claude__<id>.jsonl`` comes
from ``m-claude``, the naming of the shared calibration set), else the folder it sits in.
For each habit and each source, the per-session estimate on every *other* source is compared
with the source's own: the relative error is how far a figure calibrated elsewhere lands on
sessions it did not see.

With few sources the errors are few too, and a source of three sessions cannot tell a habit
apart from chance: a row is *unsettled* when the held-out source has fewer than
``MIN_SESSIONS`` sessions measuring the habit, or its own 95 % interval reaches beyond
``BAND`` of its estimate. Such an error is reported, never trusted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from .estimate import BAND, HABITS, Estimate, estimate, units
from .habits import Habits

MIN_SESSIONS = 5


def source_of(file: str) -> str:
    """The source of the log shown as ``file``: its name's part before ``__``, else its
    folder's name."""
    path = PurePath(file)
    head, sep, _ = path.name.partition("__")
    if sep and head:
        return head
    return path.parent.name or "logs"


@dataclass(frozen=True)
class HeldOut:
    """One habit with one source left out."""

    source: str
    own: Estimate
    others: Estimate

    @property
    def error(self) -> float | None:
        """(others − own) / own: the error of the others' figure on this source."""
        if self.own.value is None or self.others.value is None or not self.own.value:
            return None
        return (self.others.value - self.own.value) / self.own.value

    @property
    def settled(self) -> bool:
        """Whether this source measures the habit well enough for its error to mean much."""
        own = self.own
        if own.sessions < MIN_SESSIONS or own.value is None or not own.value:
            return False
        assert own.low is not None and own.high is not None
        return own.value - own.low <= BAND * own.value and own.high - own.value <= BAND * own.value

    def to_dict(self) -> dict[str, Any]:
        error = self.error
        return {"source": self.source, "own": self.own.to_dict(), "others": self.others.to_dict(),
                "error": None if error is None else round(error, 4), "settled": self.settled}


def leave_one_out(by_source: dict[str, Sequence[Habits]]) -> dict[str, list[HeldOut]]:
    """habit key → one ``HeldOut`` per source that measures it (two sources at least)."""
    table: dict[str, list[HeldOut]] = {}
    for habit in HABITS:
        rows = []
        for source, sessions in sorted(by_source.items()):
            own = units(habit, sessions)
            rest = [u for other, more in by_source.items() if other != source
                    for u in units(habit, more)]
            if own and rest:
                rows.append(HeldOut(source, estimate(own), estimate(rest)))
        table[habit.key] = rows
    return table


def verdict(rows: Sequence[HeldOut]) -> str:
    """What the held-out errors of one habit say, in a few words."""
    settled = [r for r in rows if r.settled and r.error is not None]
    if len(rows) < 2:
        return "one source: cannot be checked"
    if not settled:
        return "no source settles it"
    worst = max((r.error or 0.0 for r in settled), key=abs)
    word = "holds" if abs(worst) <= BAND else "moves"
    return f"{word} (worst settled error {worst:+.0%}, {len(settled)} of {len(rows)} sources)"
