"""Importing a Claude Code session log: the history plus a report of every repair (§9.2, §12.6).

``load_transcript(path)`` reads the file leniently (``lines``), picks the conversation
(``select``), rebuilds Messages API history (``builder``) and says what it had to do on the
way: lines skipped, re-logged copies dropped, calls given a synthetic result, which compaction
boundary it started from, how many responses carry the usage the API reported.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .blocks import IMAGE_PLACEHOLDER
from .builder import Builder, Recorded
from .lines import MAX_BYTES, ReadResult, TranscriptError, read_lines
from .recorded import Logged, logged_usage, usage_known
from .select import Boundary, select

Messages = list[dict[str, Any]]


@dataclass
class ImportReport:
    """What the import skipped, dropped and added (every count is of lines unless named)."""

    file: str
    lines: int
    conversation_lines: int
    comment_lines: int
    broken_lines: list[int]
    duplicates_dropped: int
    orphan_results_dropped: int
    blocks_dropped: int
    client_messages_dropped: int
    sidechain_dropped: int
    summaries_dropped: int
    synthetic_results: list[str]
    placeholder_added: bool
    boundaries: list[Boundary]
    boundary_used: Boundary | None
    usage_records: int
    model: str | None
    images_replaced: int = 0  # images the API would refuse, each now a text placeholder
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: lists of line numbers and ids become counts plus the first few."""
        data = asdict(self)
        data["broken_lines"] = {"count": len(self.broken_lines), "first": self.broken_lines[:5]}
        data["synthetic_results"] = {"count": len(self.synthetic_results),
                                     "ids": self.synthetic_results[:5]}
        return data


def _notes(report: ImportReport) -> list[str]:
    """The repairs a reader must know about, in words ("say so")."""
    notes = []
    if report.synthetic_results:
        notes.append(f"{len(report.synthetic_results)} tool call(s) had no result in the log; "
                     "each got a synthetic error result")
    if report.placeholder_added:
        notes.append("the log starts with an assistant message; a placeholder user message "
                     "was put first (the API requires one)")
    if report.boundary_used is not None:
        notes.append(f"started at the compaction boundary on line {report.boundary_used.line} "
                     f"(of {len(report.boundaries)}); --whole-file (whole_file=True) replays "
                     "everything")
    if report.broken_lines:
        notes.append(f"{len(report.broken_lines)} line(s) could not be read (not JSON, a lone "
                     "surrogate in a string, or a message that is not an object) and were "
                     "skipped")
    if report.images_replaced:
        notes.append(f"{report.images_replaced} image(s) the API would refuse (damaged base64, "
                     "too big) were replaced by a text placeholder")
    return notes


def _replaced(blocks: Any) -> int:
    """How many images ``blocks.clean`` replaced among ``blocks`` (a module function, not a
    closure that calls itself: that would be a reference cycle left for the collector)."""
    if not isinstance(blocks, list):
        return 0
    return sum(_replaced(b.get("content")) if b.get("type") == "tool_result" else
               b.get("type") == "text" and b.get("text", "").startswith(IMAGE_PLACEHOLDER)
               for b in blocks)


def _placeholders(messages: Messages) -> int:
    """How many images ``blocks.clean`` replaced (at any depth of a tool result)."""
    return sum(_replaced(m["content"]) for m in messages)


def _no_requests(report: ImportReport, messages: Messages) -> str | None:
    """Why a log yields no request to replay (no assistant message), in words; else None."""
    if any(m["role"] == "assistant" for m in messages):
        return None
    used = report.boundary_used
    if used is not None:
        how = f"a {used.trigger} compaction" if used.trigger else "a compaction"
        return (f"0 requests: the log ends with {how} (line {used.line}, e.g. /compact) and "
                "nothing was asked after it; --whole-file replays what came before")
    return "0 requests: the log holds no response of the model, only user messages"


def _usage_known(recorded: Recorded) -> bool:
    return usage_known(recorded.usage)


@dataclass
class Transcript:
    """A session log as Messages API history, with what the log recorded per response."""

    path: Path
    messages: Messages
    recorded: dict[int, Recorded]  # index of an assistant message → its model and usage
    report: ImportReport
    logged: dict[str, Logged] = field(default_factory=dict)  # every usage, the whole log

    def usage(self, index: int) -> dict[str, Any] | None:
        """The usage logged for the assistant message at ``index``, when it is real."""
        recorded = self.recorded.get(index)
        return recorded.usage if recorded is not None and _usage_known(recorded) else None


def load_transcript(path: str | Path, *, whole_file: bool = False,
                    max_bytes: int = MAX_BYTES) -> Transcript:
    """Import one session log; ``TranscriptError`` when it holds no conversation at all."""
    path = Path(path)
    return build_transcript(path, read_lines(path, max_bytes), whole_file=whole_file)


def build_transcript(path: Path, read: ReadResult, *, whole_file: bool = False) -> Transcript:
    """The history of the lines ``read`` holds (a whole file, or one session's lines gathered
    from several: ``group``), named after ``path``."""
    chosen = select(read.entries, whole_file=whole_file)
    builder = Builder()
    for entry in chosen.entries:
        builder.add(entry)
    messages = builder.finish()
    if not messages:
        raise TranscriptError("holds no conversation: no Claude Code user or assistant entry "
                              f"with a message in {read.lines} line(s)")
    models = Counter(r.model for r in builder.recorded.values() if r.model)
    report = ImportReport(
        file=path.name, lines=read.lines, conversation_lines=len(chosen.entries),
        comment_lines=read.comments, broken_lines=read.broken,
        duplicates_dropped=builder.duplicates, orphan_results_dropped=builder.orphan_results,
        blocks_dropped=builder.blocks_dropped, client_messages_dropped=builder.client_messages,
        sidechain_dropped=chosen.sidechain_dropped, summaries_dropped=chosen.summaries_dropped,
        synthetic_results=builder.synthetic_results, placeholder_added=builder.placeholder,
        boundaries=chosen.boundaries, boundary_used=chosen.used,
        usage_records=sum(_usage_known(r) for r in builder.recorded.values()),
        model=models.most_common(1)[0][0] if models else None,
        images_replaced=_placeholders(messages))
    report.notes = _notes(report)
    empty = _no_requests(report, messages)
    if empty is not None:
        report.notes.insert(0, empty)
    logged = logged_usage(select(read.entries, whole_file=True).entries)
    return Transcript(path, messages, builder.recorded, report, logged)
