"""Stage 4 — the LLM summary, and everything it takes to make it safe (guide §14 stage 4, §9,
§10, §12.3–§12.4).

When stage 3's offload is not enough — a long history of small turns — the older part of the
history is summarized by the model itself. Calling the model is the easy 5 %: the summary
needs a template that keeps what matters (4.1), a way out when the summary request is itself
too long (4.2), the files put back afterwards (4.3), and a circuit breaker with a fallback
that calls no model (4.4). Run it on the long task and look at the cache: every compaction
rewrites the prefix.
"""

from typing import Any

from s1_loop import estimate_tokens

from .breaker import TRANSIENT, CircuitBreaker, guarded
from .compact import SUMMARY_HEADER, ask_for_summary, recent_start, summarize
from .compactor import Compactor
from .errors import (
    CompactionFailed,
    EmptySummary,
    NothingToSummarize,
    SummaryCutOff,
    SummaryTooLong,
    ToolCallInsteadOfSummary,
)
from .layer import SummaryLayer
from .ledger import TokenLedger
from .ptl import MAX_PTL_RETRIES, Retried, drop_oldest, ptl_retry, strip_images
from .rebuild import ATTACHMENT_HEADER, FileLog, reattach_files, touched_paths
from .template import FREE_FORM, SECTIONS, read_summary, summary_prompt
from .transcript import TRANSCRIPT, archive, read_transcript


def make_layer(**options: Any) -> SummaryLayer:
    """The stage's context layer: offload, then a summary past the threshold.

    The options are ``SummaryLayer``'s: ``template="free-form"``, ``breaker=False``,
    ``rebuild=False`` and ``mtime_notes=False`` switch a fix off to show its pitfall
    (``--set rebuild=false`` on the command line).
    """
    return SummaryLayer(**options)


def summarizer(**options: Any) -> Compactor:
    """Stage 4's compaction as a function of (messages, session), for a pipeline that decides
    itself when to compact (stage 5); the options are the ``Compactor``'s."""
    return Compactor(**options)


__all__ = [
    "ATTACHMENT_HEADER", "FREE_FORM", "MAX_PTL_RETRIES", "SECTIONS", "SUMMARY_HEADER",
    "TRANSCRIPT", "TRANSIENT", "CircuitBreaker", "CompactionFailed", "Compactor",
    "EmptySummary", "FileLog", "NothingToSummarize", "Retried", "SummaryCutOff",
    "SummaryLayer", "SummaryTooLong", "TokenLedger", "ToolCallInsteadOfSummary", "archive",
    "ask_for_summary",
    "drop_oldest", "estimate_tokens", "guarded", "make_layer", "ptl_retry", "read_summary",
    "read_transcript", "reattach_files", "recent_start", "strip_images", "summarize",
    "summarizer", "summary_prompt", "touched_paths",
]
