"""One summary per run: the total bill and the quality signals (§12.1, §12.2, §12.6).

The headline is token-per-task: every input and output token of every call, summary calls and
failed retries included. A version that is cheap per turn but needs twice the turns is the
more expensive one (§12.1, §14 stage 5).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ctxlab.telemetry.record import ErrorInfo, TurnRecord

PATHOLOGICAL_RUN = 3
"""A run of this many identical calls with unchanged results is pathological (§12.2)."""


def duplicate_call_rate(records: Sequence[TurnRecord]) -> float:
    """Share of tool calls whose (name, input_hash) was already called earlier in the run."""
    seen: set[tuple[str, str]] = set()
    calls = repeats = 0
    for record in records:
        for call in record.tool_calls:
            key = (call["name"], call["input_hash"])
            calls += 1
            repeats += key in seen
            seen.add(key)
    return repeats / calls if calls else 0.0


def longest_unchanged_run(records: Sequence[TurnRecord]) -> int:
    """Longest run of one identical call whose result never changed (§12.2); 0 when none.

    Runs are counted per fingerprint, so other calls in between do not break them, and the
    first call of a run counts: read, re-read, re-read with the same result is a run of 3.
    A repeat on a turn without the ``thrash`` marker (its result changed) starts a new run.
    """
    run: dict[tuple[str, str], int] = {}
    longest = 0
    for record in records:
        for call in record.tool_calls:
            key = (call["name"], call["input_hash"])
            run[key] = run[key] + 1 if key in run and record.thrash else 1
            if run[key] > 1:
                longest = max(longest, run[key])
    return longest


ADMISSION_LAYERS = frozenset({"offload"})
"""Layers that act on each result as it arrives, not on context pressure: never a re-trigger."""


def retrigger_after_compaction(records: Sequence[TurnRecord]) -> int:
    """Turns whose compaction follows a compaction on the turn before (§12.6, §10.3).

    Several layers firing on the same turn is the tiered pipeline working, not a re-trigger;
    offloading a big result as it arrives is not a compaction under pressure.
    """
    pressured = {record.turn for record in records
                 if any(e["layer"] not in ADMISSION_LAYERS for e in record.compactions)}
    return sum(1 for turn in pressured if turn - 1 in pressured)


def consecutive_failures(records: Sequence[TurnRecord]) -> int:
    """The longest streak of failed calls in a row: what a circuit breaker watches (§9.4)."""
    longest = streak = 0
    for record in records:
        streak = streak + 1 if record.error is not None else 0
        longest = max(longest, streak)
    return longest


@dataclass
class RunSummary:
    """The facts and metrics of one run, as ``ctxlab compare`` lines them up (§12.6)."""

    stage: int | str
    scenario: str
    success: bool
    error: ErrorInfo | None
    turns: int
    tokens_per_task: int
    cost_usd: float
    cache_read_share: float
    peak_occupancy: float
    duplicate_call_rate: float
    longest_unchanged_run: int
    compactions_per_layer: dict[str, int] = field(default_factory=dict)
    tokens_freed_per_layer: dict[str, int] = field(default_factory=dict)
    failures: int = 0
    consecutive_failures: int = 0
    retrigger_after_compaction: int = 0
    summary_calls: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)
    """Every visible fact the model did not find: ``{"turn", "fact", "position",
    "occupancy", "tokens", "kind"}`` (DESIGN §4, retrieval)."""
    changed: list[dict[str, Any]] = field(default_factory=list)
    """Every file the model saw change since an older read: ``{"turn", "file", "fact"}``."""
    count_calls: int = 0
    """``count_tokens`` calls of the context layer over the run (§9.5)."""
    size_error: float | None = None
    """The largest error of the layer's own size of a request against the input tokens the
    API reported, as a share of them (None when the layer reports no size)."""
    subagents: list[dict[str, Any]] = field(default_factory=list)
    """Each child's own figures when the run delegated (§11): its tokens and dollars are
    already in this run's ``tokens_per_task`` and ``cost_usd``."""

    @property
    def thrash_pathological(self) -> bool:
        """True when the longest unchanged run reaches the §12.2 threshold."""
        return self.longest_unchanged_run >= PATHOLOGICAL_RUN

    @classmethod
    def from_records(cls, records: Sequence[TurnRecord], *, stage: int | str, scenario: str,
                     success: bool, error: ErrorInfo | None = None) -> RunSummary:
        """Compute the summary of a run from all its call records."""
        total_input = sum(r.reported_input_tokens for r in records)
        cache_read = sum(r.cache_read_tokens for r in records)
        per_layer = Counter[str]()
        freed = Counter[str]()
        for record in records:
            for event in record.compactions:
                per_layer[event["layer"]] += 1
                freed[event["layer"]] += event["tokens_freed"]
        return cls(
            stage=stage,
            scenario=scenario,
            success=success,
            error=error,
            turns=len({r.turn for r in records if r.kind == "agent"}),
            tokens_per_task=sum(r.total_tokens for r in records),
            cost_usd=sum(r.cost_usd for r in records),
            cache_read_share=cache_read / total_input if total_input else 0.0,
            peak_occupancy=max((r.occupancy for r in records), default=0.0),
            duplicate_call_rate=duplicate_call_rate(records),
            longest_unchanged_run=longest_unchanged_run(records),
            compactions_per_layer=dict(per_layer),
            tokens_freed_per_layer=dict(freed),
            failures=sum(r.error is not None for r in records),
            consecutive_failures=consecutive_failures(records),
            retrigger_after_compaction=retrigger_after_compaction(records),
            summary_calls=sum(r.kind == "summary" for r in records),
            misses=[{"turn": r.turn, **miss} for r in records for miss in r.misses],
            changed=[{"turn": r.turn, **c} for r in records for c in r.changed],
            count_calls=sum(r.count_calls for r in records),
            size_error=max((abs(r.size_error) / r.reported_input_tokens for r in records
                            if r.size_error is not None), default=None),
        )

    def to_dict(self) -> dict[str, Any]:
        """One flat JSON object per run (``--json`` output, the JSONL summary line)."""
        data = asdict(self)
        if not self.subagents:  # a run without children reads as it always did
            del data["subagents"]
        return {**data, "thrash_pathological": self.thrash_pathological}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSummary:
        """Rebuild a summary from :meth:`to_dict` output; extra keys are ignored."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
