"""Telemetry: per-call records, run summaries and crash-safe JSONL logs (§12.6, §12.1, §12.2).

Every model call of a run, summarizer calls included, becomes a :class:`TurnRecord`; a run
ends with a :class:`RunSummary` whose headline is token-per-task, the total bill (§12.1).
"""

from ctxlab.telemetry.cachebreak import cache_breaks
from ctxlab.telemetry.claude_log import ClaudeCodeLog
from ctxlab.telemetry.jsonl import (
    JsonlContents,
    JsonlWriter,
    append_jsonl,
    read_jsonl,
    read_records,
)
from ctxlab.telemetry.logfolder import LogFolder
from ctxlab.telemetry.record import (
    Compaction,
    ErrorInfo,
    Kind,
    ToolCall,
    TurnRecord,
    error_info,
    input_hash,
    tool_call,
)
from ctxlab.telemetry.session import Session, SessionLog, load_session
from ctxlab.telemetry.summary import (
    PATHOLOGICAL_RUN,
    RunSummary,
    duplicate_call_rate,
    longest_unchanged_run,
    retrigger_after_compaction,
)
from ctxlab.telemetry.usage import UsageParts, record_from_usage, usage_parts

__all__ = [
    "ClaudeCodeLog",
    "append_jsonl",
    "read_records",
    "cache_breaks",
    "PATHOLOGICAL_RUN",
    "Compaction",
    "ErrorInfo",
    "JsonlContents",
    "JsonlWriter",
    "LogFolder",
    "Kind",
    "RunSummary",
    "Session",
    "SessionLog",
    "ToolCall",
    "TurnRecord",
    "UsageParts",
    "duplicate_call_rate",
    "error_info",
    "input_hash",
    "load_session",
    "longest_unchanged_run",
    "read_jsonl",
    "record_from_usage",
    "retrigger_after_compaction",
    "tool_call",
    "usage_parts",
]
