"""Why a compaction failed: the structural failures (guide §9.4, §9.6).

A failed compaction is one of two kinds, and they need opposite treatment. Transient failures
(429, 529, 5xx, timeouts) are the SDK's own exception types: wait a little and try again. The
structural ones below come from the input itself, so a retry meets the same input and fails
the same way; they are never retried, and each one counts towards the circuit breaker.
"""

from __future__ import annotations


class CompactionFailed(RuntimeError):
    """No summary could be made from this history, and trying again would not change that."""


class NothingToSummarize(CompactionFailed):
    """Everything before the recent rounds is the first message: there is nothing to fold."""


class SummaryTooLong(CompactionFailed):
    """The summary request was still too long after every PTL retry (§9.1)."""


class SummaryCutOff(CompactionFailed):
    """The summary stopped at the context window or its ``max_tokens``: the request left it no
    room (§8.1). Like a request that is too long, it needs a shorter history (§9.1)."""


class EmptySummary(CompactionFailed):
    """The summarizer answered, but with no summary in it (§9.4)."""


class ToolCallInsteadOfSummary(CompactionFailed):
    """The summarizer called a tool instead of writing (§9.6)."""
