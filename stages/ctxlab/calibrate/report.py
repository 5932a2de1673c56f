"""Pooling the habits of several session logs into one report (DESIGN §4, §6; guide §11).

``calibrate(paths)`` groups the lines of the logs by session as ``ctxlab replay`` does
(``replay.group``: a session's main thread is its *parent*, each sub-agent a *sidechain*),
imports each thread (whole file: a compaction does not end a session's habits), measures it
(``habits``) and pools the counts over responses. Each habit is measured in the thread it
happened in: a re-read in a sub-agent is the sub-agent's, not its parent's. A thread that is
no agent at work counts in ``parents`` or ``sidechains`` but not in the habit statistics: a
compaction call (Claude Code's summary request, ``replay.kind``), a ``Warmup`` call, a thread
with a single response. The statistics are pooled over parents and sidechains, and given for
each apart (``by_role``). A statistic with nothing to measure is None.

Pooled figures let a few long sessions dominate; ``per_session`` gives every habit estimated
per session with a bootstrap 95 % interval (``estimate``), and ``sources`` how each habit
measured on the other sources lands on each source left out (``sources``).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..replay import Transcript, TranscriptError
from ..replay.discover import display_name, find_logs
from ..replay.group import Member, group
from ..replay.kind import AGENT_WORK, Kind, agent_types, is_compaction_call, sidechain_kind
from ..replay.transcript import build_transcript
from .estimate import Estimate, estimates, percentile
from .habits import Habits, measure
from .sources import HeldOut, leave_one_out, source_of

KEYS = ("sessions", "parents", "sidechains", "responses", "output_tokens_median",
        "output_tokens_p90", "parallel_mean", "note_rate", "reread_rate", "reread_in_view_rate",
        "reread_after_compaction_rate")
"""The top-level statistics, in this order (``by_role`` and ``files`` follow in ``--json``)."""
ROLES = ("parents", "sidechains")


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


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


@dataclass
class FileHabits:
    """One thread of a session (a parent or a sidechain): its statistics, or why it was left
    out of the pooled ones."""

    file: str
    habits: Habits | None = None
    excluded: str | None = None
    partial_usage: int = 0
    error: str | None = None
    session: str | None = None
    role: str | None = None  # "parents" or "sidechains"; None for a file that was not read
    kind: str | None = None  # a sidechain's kind (``replay.kind``)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"file": self.file, "session": self.session,
                                "role": self.role, "kind": self.kind}
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
    by_role: dict[str, dict[str, Any]] = field(default_factory=dict)
    per_session: dict[str, Estimate] = field(default_factory=dict)
    sources: dict[str, list[HeldOut]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**self.stats, "by_role": self.by_role,
                "per_session": {k: e.to_dict() for k, e in self.per_session.items()},
                "leave_one_source_out": {k: [r.to_dict() for r in rows]
                                         for k, rows in self.sources.items()},
                "files": [f.to_dict() for f in self.files]}

    @property
    def notes(self) -> list[str]:
        """What a reader must know about the figures, in words."""
        said = [f"{f.file}: {f.excluded}; counted in {f.role}, left out of the statistics"
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


def _excluded(kind: Kind | None, messages: list[dict[str, Any]], habits: Habits) -> str | None:
    """Why a thread shows no habit of an agent at work, or None."""
    if kind is not None and kind.kind not in AGENT_WORK:
        return f"a {kind.kind} call ({kind.evidence}), no agent turn"
    if kind is None and is_compaction_call(messages):
        return "a compaction call"
    return "a single response" if habits.responses < 2 else None


def measure_member(member: Member, name: str, types: dict[str, str]) -> FileHabits:
    """The habits of one thread (``excluded`` says why it is not pooled)."""
    role = "sidechains" if member.sidechain else "parents"
    read = member.read()
    try:
        transcript = build_transcript(member.paths[0], read, whole_file=True)
    except TranscriptError as error:
        return FileHabits(name, error=str(error), session=member.session, role=role)
    usage = {i: transcript.usage(i) or (r.usage or None) for i, r in transcript.recorded.items()}
    habits = measure(transcript.messages, usage,
                     frozenset(transcript.report.synthetic_results), _compactions(transcript))
    kind = sidechain_kind(member.agent, read.entries, transcript.messages, types) \
        if member.sidechain else None
    return FileHabits(name, habits, _excluded(kind, transcript.messages, habits),
                      session=member.session, role=role, kind=kind.kind if kind else None)


def calibrate(paths: list[Path]) -> Calibration:
    """The behaviour statistics of the session logs under ``paths`` (``DiscoveryError`` when a
    path holds none), thread by thread."""
    trees, unread = group(find_logs(paths))
    files = [FileHabits(display_name(path, paths), error=why) for path, why in unread]
    sessions = 0
    for tree in trees:
        with tree.loaded():
            types = agent_types(tree.entries())
            measured = [measure_member(m, display_name(m.paths[0], paths), types)
                        for m in tree.members]
        sessions += any(f.error is None for f in measured)
        files += measured
    read = [f for f in files if f.error is None]
    counts = {role: sum(f.role == role for f in read) for role in ROLES}
    measured = [f for f in read if f.habits and not f.excluded]
    pooled = statistics_of([f.habits for f in measured], sessions)
    stats = {"sessions": pooled.pop("sessions"), **counts, **pooled}
    by_role = {}
    for role in ROLES:
        alone = statistics_of([f.habits for f in read if f.role == role and f.habits
                               and not f.excluded], counts[role])
        by_role[role] = {"threads": alone.pop("sessions"), **alone}
    by_source: dict[str, list[Habits]] = {}
    for f in measured:
        by_source.setdefault(source_of(f.file), []).append(f.habits)
    return Calibration(stats, files, by_role, estimates([f.habits for f in measured]),
                       leave_one_out(by_source))
