"""Which lines of a session log make the conversation (real-transcripts §4.4, §5 step 2).

Only ``user`` and ``assistant`` lines with a ``message`` are conversation; the rest is harness
bookkeeping (progress, snapshots, queue operations, titles). Sidechain lines belong to a
subagent and are dropped, unless the whole file is a subagent's. A compaction leaves the old
history in the file: a ``compact_boundary`` system line, then a user line marked
``isCompactSummary`` that holds the summary the model saw from then on (§9, §12.4). By default
the replay starts at the last boundary, as the session did; ``whole_file`` keeps everything
before it instead and drops the summaries, which would repeat it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .lines import Entry, seconds

CONVERSATION = ("user", "assistant")


@dataclass(frozen=True)
class Boundary:
    """A ``compact_boundary`` line: where it is, what triggered it, the size it compacted."""

    line: int
    trigger: str | None
    pre_tokens: int | None
    at: float | None = None  # when it was written (epoch seconds), None when unreadable


@dataclass
class Selection:
    """The conversation lines to convert, and what was left out."""

    entries: list[Entry]
    boundaries: list[Boundary]
    used: Boundary | None
    sidechain_dropped: int
    summaries_dropped: int


def _boundary(entry: Entry) -> Boundary:
    meta = entry.data.get("compactMetadata") or {}
    pre = meta.get("preTokens")
    return Boundary(entry.line, meta.get("trigger"), pre if isinstance(pre, int) else None,
                    seconds(entry.data.get("timestamp")))


def select(entries: list[Entry], *, whole_file: bool = False) -> Selection:
    """The conversation of ``entries``, from the last compaction boundary unless ``whole_file``.

    The boundary is found by position, not line number: a session's lines may come from
    several files (``group``)."""
    marks = [i for i, e in enumerate(entries)
             if e.type == "system" and e.data.get("subtype") == "compact_boundary"]
    boundaries = [_boundary(entries[i]) for i in marks]
    used = None if whole_file or not boundaries else boundaries[-1]
    start = marks[-1] + 1 if used is not None else 0
    talk = [(i, e) for i, e in enumerate(entries)
            if e.type in CONVERSATION and isinstance(e.data.get("message"), dict)]
    subagent = bool(talk) and all(e.data.get("isSidechain") for _, e in talk)
    kept = [(i, e) for i, e in talk if subagent or not e.data.get("isSidechain")]
    sidechain_dropped = len(talk) - len(kept)
    chosen = [e for i, e in kept if i >= start]
    summaries = [e for e in chosen if e.data.get("isCompactSummary")]
    if whole_file:
        chosen = [e for e in chosen if not e.data.get("isCompactSummary")]
    return Selection(chosen, boundaries, used, sidechain_dropped,
                     len(summaries) if whole_file else 0)
