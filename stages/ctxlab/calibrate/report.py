"""Pooling the habits of several session logs into one report (DESIGN §4, §6).

``calibrate(paths)`` imports each log with ``ctxlab.replay`` (whole file: a compaction does
not end a session's habits), measures it (``habits``) and pools the counts over responses.
A log that is a compaction call (its only answer is a ``<summary>`` written on request) or
holds a single response counts in ``sessions`` but not in the habit statistics: it shows no
habit of an agent at work. A statistic with nothing to measure is None.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..replay import Transcript, TranscriptError, load_transcript
from ..replay.discover import display_name, find_logs
from .habits import Habits, measure

KEYS = ("sessions", "responses", "output_tokens_median", "output_tokens_p90", "parallel_mean",
        "note_rate", "reread_rate", "reread_in_view_rate", "reread_after_compaction_rate")
"""The top-level statistics, in this order (``files`` follows them in ``--json``)."""


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def percentile(values: list[int], share: float) -> float | None:
    """The nearest-rank percentile (the smallest value with ``share`` of the values at or
    below it); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return float(ordered[max(0, math.ceil(share * len(ordered)) - 1)])


def statistics_of(habits: list[Habits], sessions: int) -> dict[str, Any]:
    """The pooled statistics of ``habits`` (one per measured session)."""
    outputs = [n for h in habits for n in h.output_tokens]
    parallel = [n for h in habits for n in h.parallel]
    return {
        "sessions": sessions,
        "responses": sum(h.responses for h in habits),
        "output_tokens_median": float(statistics.median(outputs)) if outputs else None,
        "output_tokens_p90": percentile(outputs, 0.9),
        "parallel_mean": round(statistics.fmean(parallel), 4) if parallel else None,
        "note_rate": _ratio(sum(h.noted for h in habits),
                            sum(h.results_with_items for h in habits)),
        "reread_rate": _ratio(sum(h.rereads for h in habits), sum(h.reads for h in habits)),
        "reread_in_view_rate": _ratio(sum(h.rereads - h.rereads_after_compaction
                                          for h in habits), sum(h.reads for h in habits)),
        "reread_after_compaction_rate": _ratio(sum(h.rereads_after_compaction for h in habits),
                                               sum(h.reads for h in habits)),
    }


def is_compaction_call(messages: list[dict[str, Any]]) -> bool:
    """Whether the log is one summary request and its answer (a compaction subagent)."""
    answers = [m for m in messages if m["role"] == "assistant"]
    if len(answers) != 1 or messages[-1] is not answers[0]:
        return False
    blocks = answers[0]["content"]
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    return "<summary>" in text and not any(b.get("type") == "tool_use" for b in blocks)


@dataclass
class FileHabits:
    """One log: its statistics, or why it was left out of the pooled ones."""

    file: str
    habits: Habits | None = None
    excluded: str | None = None
    partial_usage: int = 0
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"file": self.file}
        if self.error is not None:
            return data | {"error": self.error}
        if self.habits is not None:
            data |= statistics_of([self.habits], 1)
            data["partial_usage"] = self.habits.partial_usage
        return data | {"excluded": self.excluded}


@dataclass
class Calibration:
    """The pooled statistics and the per-file ones."""

    stats: dict[str, Any]
    files: list[FileHabits] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {**self.stats, "files": [f.to_dict() for f in self.files]}

    @property
    def notes(self) -> list[str]:
        """What a reader must know about the figures, in words."""
        said = [f"{f.file}: {f.excluded}; counted in sessions, left out of the statistics"
                for f in self.files if f.excluded]
        said += [f"{f.file}: skipped, {f.error}" for f in self.files if f.error]
        partial = sum(f.habits.partial_usage for f in self.files if f.habits and not f.excluded)
        if partial:
            said.append(f"{partial} response(s) recorded a partial output_tokens figure (below "
                        "half their visible content, a streaming snapshot) and were left out "
                        "of the output statistics")
        return said


def _compactions(transcript: Transcript) -> frozenset[int]:
    """The index of the first response written after each compaction boundary of the log."""
    times = sorted((r.at, i) for i, r in transcript.recorded.items() if r.at is not None)
    return frozenset(next((i for at, i in times if at >= b.at), len(transcript.messages))
                     for b in transcript.report.boundaries if b.at is not None)


def measure_file(path: Path, name: str) -> FileHabits:
    """The habits of one log (``excluded`` says why it is not pooled)."""
    try:
        transcript = load_transcript(path, whole_file=True)
    except TranscriptError as error:
        return FileHabits(name, error=str(error))
    usage = {i: transcript.usage(i) or (r.usage or None) for i, r in transcript.recorded.items()}
    habits = measure(transcript.messages, usage,
                     frozenset(transcript.report.synthetic_results), _compactions(transcript))
    excluded = None
    if is_compaction_call(transcript.messages):
        excluded = "a compaction call"
    elif habits.responses < 2:
        excluded = "a single response"
    return FileHabits(name, habits, excluded)


def calibrate(paths: list[Path]) -> Calibration:
    """The behaviour statistics of the session logs under ``paths`` (``DiscoveryError`` when a
    path holds none)."""
    files = [measure_file(log, display_name(log, paths)) for log in find_logs(paths)]
    pooled = [f.habits for f in files if f.habits is not None and not f.excluded]
    sessions = sum(f.error is None for f in files)
    return Calibration(statistics_of(pooled, sessions), files)
