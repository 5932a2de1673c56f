"""The stage-4 context layer: stage 3's offload, plus a summary when the history gets too big
(guide §14 stage 4, §9.3, §9.5, ch8.2 L4).

``admit`` is stage 3's: big tool results go to disk as they arrive. ``prepare`` measures the
history — the last usage, corrected for what changed since (§9.5) — and past a fixed
threshold below the window it compacts: an LLM summary behind the circuit breaker, or stage
2's safe cut once the breaker is open. The history it hands over carries one prompt-cache
breakpoint, on the newest message (``cache``). ``compact`` is also the manual entry point, so both
kinds of compaction share one path, rebuild included (§10.4), and a compaction never
triggers another one (§9.3). The threshold is kept simple — the window minus the summary's
output budget minus a buffer; stage 5 does thresholds properly (§8).
"""

from __future__ import annotations

from typing import Any

from s1_loop import estimate_tokens
from s3_offload import PER_MESSAGE, PER_RESULT, OffloadLayer

from ctxlab.session import Session

from .cache import mark_newest_message
from .compact import SUMMARY_MAX_TOKENS
from .compactor import Compactor
from .ledger import TokenLedger

Messages = list[dict[str, Any]]

BUFFER = 13_000
"""Room left for the turn that follows a check (§8.1), at most a tenth of the window."""


class SummaryLayer(OffloadLayer):
    """Offload big results; summarize the history when it passes the threshold.

    ``per_result`` and ``per_message`` are stage 3's budgets; the other options are the
    ``Compactor``'s (``template``, ``breaker``, ``keep_recent``, ``rebuild``, ``mtime_notes``,
    the backoff).
    """

    def __init__(self, *, per_result: int = PER_RESULT, per_message: int = PER_MESSAGE,
                 **options: Any) -> None:
        super().__init__(per_result=per_result, per_message=per_message)
        self.compactor = Compactor(**options)
        self.ledger = TokenLedger()

    def threshold(self, window: int) -> int:
        """Compact when the history passes this many tokens."""
        return window - SUMMARY_MAX_TOKENS - min(BUFFER, window // 10)

    def prepare(self, messages: Messages, session: Session) -> Messages:
        if self.compactor.compacting:  # a compaction request never triggers one (§9.3)
            return messages
        self.compactor.record(messages, session)
        size, limit = self.ledger.size(messages, session), self.threshold(session.window)
        if size > limit:
            messages = self.compact(messages, session,
                                    trigger=f"auto: ~{size:,} tokens > {limit:,}")
        self.ledger.handed(messages)
        return mark_newest_message(messages)

    def compact(self, messages: Messages, session: Session, *,
                trigger: str = "manual") -> Messages:
        """Compact ``messages`` now; returns the new history (the same one when it failed)."""
        size = self.ledger.size(messages, session)
        done = self.compactor.run(messages, session)
        if done is None or done.messages == messages:  # failed, or a fallback that cut nothing
            return messages
        freed = estimate_tokens(messages) - estimate_tokens(done.messages)
        session.report(done.layer, freed - done.tokens_dropped, trigger)
        self.ledger.replaced(size, freed, done.messages)
        return done.messages
