# Generated from solutions/s2_truncate/thrash.py — your exercise: edit it.
# `ctxlab workbook reset 2` regenerates it (your version is backed up first).
"""Exercise 2.5 — the thrash metric (guide §12.2, §14 stage 2).

Thrashing is the agent doing again what it already did because the evidence left its
context: the same tool with the same arguments, answered with the same result. Two numbers
say how bad it is: the share of calls that repeat an earlier (tool, arguments) pair, and the
longest run of repeats of one call whose result did not change (3 or more is pathological).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

PATHOLOGICAL = 3


@dataclass(frozen=True)
class ThrashReport:
    """Duplicate-call rate and the longest run of unchanged repeats."""

    duplicate_rate: float
    longest_run: int

    @property
    def pathological(self) -> bool:
        return self.longest_run >= PATHOLOGICAL


def thrash_report(calls: list[tuple[str, dict[str, Any], str]]) -> ThrashReport:
    """Measure ``calls``, a run's tool calls in order as (name, input, result text).

    ``duplicate_rate``: calls whose (name, input) appeared earlier, over all calls (0.0 when
    there are none). ``longest_run``: for each (name, input), count consecutive occurrences —
    calls to other tools in between do not break the run — whose result equals the previous
    occurrence's; a changed result starts a new run at 1. The first call counts, so reading
    the same file three times with the same content gives 3.
    """
    raise NotImplementedError("Exercise 2.5 — thrash_report(): see notebooks/02_truncate.ipynb")
