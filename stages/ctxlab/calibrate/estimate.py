"""Habits estimated per session, so that a few long sessions cannot dominate (DESIGN §4).

Pooling counts over every response lets a session of 400 reads outweigh twenty short ones:
its habits become "the" habits. Here each habit is first a figure of one session (a thread:
a main thread or a sub-agent, each its own context) with the count it rests on: reads for a
re-read rate, results with items for the note rate, responses for output length, calling
responses for parallel calls. The estimate is the weighted mean of the session figures with
weight ``min(count, median count)``: a session counts by its own count up to a typical
session's, so neither a very long session nor one with a single read can swing it.

The 95 % interval is the percentile bootstrap over sessions: whole sessions drawn again with
replacement ``DRAWS`` times (seeded, so a report is reproducible), the estimate recomputed
each time (its cap included).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .habits import Habits

BAND = 0.30
"""How close a habit must come: a simulated estimate to the logs' (``realism``), an interval's
half-width to its estimate for a source to settle a habit (``sources``)."""
DRAWS = 1000
"""Bootstrap draws per interval."""
OPENING = 3
"""The calling responses that open a session (``parallel_opening``: several reads at the
start of a task)."""
Unit = tuple[float, int]
"""One session's figure of a habit and the count it rests on."""


def percentile(values: Sequence[float], share: float) -> float | None:
    """The nearest-rank percentile (the smallest value with ``share`` of the values at or
    below it); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return float(ordered[max(0, math.ceil(share * len(ordered)) - 1)])


def _rate(part: int, whole: int) -> Unit | None:
    return (part / whole, whole) if whole else None


def _mean(values: Sequence[int]) -> Unit | None:
    return (statistics.fmean(values), len(values)) if values else None


def _of_kind(kind: str) -> Callable[[Habits], Unit | None]:
    return lambda h: _mean([n for n, k in zip(h.parallel, h.batches, strict=True) if k == kind])


@dataclass(frozen=True)
class Habit:
    """A habit: its key, its label (80 columns) and its figure in one session."""

    key: str
    label: str
    of: Callable[[Habits], Unit | None]


HABITS = (
    Habit("output_tokens_median", "output tokens per response, median",
          lambda h: (float(statistics.median(h.output_tokens)), len(h.output_tokens))
          if h.output_tokens else None),
    Habit("output_tokens_p90", "output tokens per response, p90",
          lambda h: (percentile(h.output_tokens, 0.9), len(h.output_tokens))
          if h.output_tokens else None),
    Habit("parallel_mean", "tool calls per calling response", lambda h: _mean(h.parallel)),
    Habit("parallel_share", "  calling responses with 2+ calls",
          lambda h: _rate(sum(n > 1 for n in h.parallel), len(h.parallel))),
    Habit("parallel_opening", f"  in the first {OPENING} calling responses",
          lambda h: _mean(h.parallel[:OPENING])),
    Habit("parallel_read", "  when the first call is a read", _of_kind("read")),
    Habit("parallel_search", "  when the first call is a search", _of_kind("search")),
    Habit("parallel_run", "  when the first call is a command", _of_kind("run")),
    Habit("parallel_write", "  when the first call is a write", _of_kind("write")),
    Habit("note_rate", "note rate (result item restated)",
          lambda h: _rate(h.noted, h.results_with_items)),
    Habit("reread_in_view_rate", "re-reads of a file in view, per read",
          lambda h: _rate(h.rereads - h.rereads_after_compaction, h.reads)),
    Habit("reread_after_compaction_rate", "re-reads after a compaction, per read",
          lambda h: _rate(h.rereads_after_compaction, h.reads)),
)
"""Every habit ``calibrate`` estimates per session, in report order."""


def weighted(units: Sequence[Unit]) -> float | None:
    """The estimate: session figures weighted by their count capped at the median count."""
    if not units:
        return None
    cap = statistics.median(n for _, n in units)
    weights = [min(n, cap) for _, n in units]
    return sum(w * x for w, (x, _) in zip(weights, units, strict=True)) / sum(weights)


@dataclass(frozen=True)
class Estimate:
    """A habit's per-session estimate, its bootstrap 95 % interval and how many sessions
    measured it."""

    value: float | None
    low: float | None
    high: float | None
    sessions: int

    def to_dict(self) -> dict[str, float | int | None]:
        def cut(x: float | None) -> float | None:
            return None if x is None else round(x, 4)
        return {"value": cut(self.value), "low": cut(self.low), "high": cut(self.high),
                "sessions": self.sessions}


def estimate(units: Sequence[Unit], seed: int = 0) -> Estimate:
    """The estimate of ``units`` (one per session) and its bootstrap 95 % interval."""
    if not units:
        return Estimate(None, None, None, 0)
    rng = random.Random(seed)
    draws = sorted(weighted(rng.choices(units, k=len(units))) or 0.0 for _ in range(DRAWS))
    return Estimate(weighted(units), percentile(draws, 0.025), percentile(draws, 0.975),
                    len(units))


def units(habit: Habit, sessions: Sequence[Habits]) -> list[Unit]:
    """The figures of ``habit`` in the sessions that measure it."""
    return [u for u in map(habit.of, sessions) if u is not None]


def estimates(sessions: Sequence[Habits]) -> dict[str, Estimate]:
    """Every habit's per-session estimate over ``sessions``."""
    return {h.key: estimate(units(h, sessions)) for h in HABITS}
