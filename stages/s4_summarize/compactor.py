"""Compaction behind the circuit breaker: the summary, or the fallback that calls no model
(guide §9.3, §9.4, §8.5).

A ``Compactor`` owns what must outlive one compaction: the breaker's count, the log of when
each file was last seen (for the rebuild's mtime notes) and the flag that keeps a compaction
from triggering another one (§9.3). Stage 4's layer decides *when* to compact and calls
``run``; stage 5's pipeline calls it as a plain function of (messages, session).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from s1_loop import estimate_tokens
from s2_truncate import assert_messages_valid, find_safe_cut

from ctxlab.session import Session

from .breaker import CircuitBreaker, guarded
from .compact import SUMMARY_MAX_TOKENS, Compacted, summarize
from .ptl import MAX_PTL_RETRIES
from .rebuild import FileLog
from .template import summary_prompt
from .transcript import archive

Messages = list[dict[str, Any]]

TEMPLATES = ("structured", "free-form")


class Compactor:
    """One session's compactions.

    ``template``: ``"structured"`` (4.1) or ``"free-form"`` (to watch §12.4 happen).
    ``breaker``: False to run without the circuit breaker (to watch §9.4 happen).
    ``keep_recent``: share of the window kept verbatim after a summary (the newest round at
    least). ``retries``, ``base_delay``, ``sleep``: the backoff for transient errors.
    ``rebuild``: False to attach no files after the summary (to watch the agent read again
    the file it was editing, §10.1); ``mtime_notes``: False to attach them without saying
    which changed on disk (to watch it trust a stale copy, §10.2). ``ptl_retry``: False sends
    the summary request once, however long (to watch §9.1 happen).
    """

    def __init__(self, *, template: str = "structured", breaker: bool = True,
                 keep_recent: float = 0.1, retries: int = 2, base_delay: float = 0.05,
                 sleep: Callable[[float], None] = time.sleep, rebuild: bool = True,
                 mtime_notes: bool = True, ptl_retry: bool = True) -> None:
        if template not in TEMPLATES:
            raise ValueError(f"unknown template {template!r}; choose one of {TEMPLATES}")
        self.structured = template == "structured"
        self.breaker = CircuitBreaker() if breaker else None
        self.keep_recent = keep_recent
        self.retries, self.base_delay, self.sleep = retries, base_delay, sleep
        self.ptl_retries = MAX_PTL_RETRIES if ptl_retry else 0
        self.files = FileLog()
        self.rebuild, self.mtime_notes = rebuild, mtime_notes
        self.compacting = False

    def record(self, messages: Messages, session: Session) -> None:
        """Note when the agent last saw each file (before every request: the rebuild's mtime
        notes compare against it, §10.2)."""
        self.files.record(messages, session.workspace)

    def __call__(self, messages: Messages, session: Session) -> Messages:
        """The compacted history; ``messages`` itself when this compaction failed."""
        done = self.run(messages, session)
        return messages if done is None else done.messages

    def run(self, messages: Messages, session: Session) -> Compacted | None:
        """Compact behind the breaker; None when it failed. Dropped rounds are reported."""
        self.compacting = True
        try:
            done = guarded(lambda: self._summarize(messages, session),
                           lambda: self._truncate(messages, session), self.breaker,
                           retries=self.retries, base_delay=self.base_delay, sleep=self.sleep)
        finally:
            self.compacting = False
        if done is not None and done.rounds_dropped:
            session.report("ptl-drop", done.tokens_dropped,
                           f"{done.rounds_dropped} oldest rounds dropped unsummarized: the "
                           "summary request was too long (§9.1)")
        return done

    def _summarize(self, messages: Messages, session: Session) -> Compacted:
        return summarize(messages, session, prompt=summary_prompt(structured=self.structured),
                         keep_tokens=int(self.keep_recent * session.window),
                         files=self.files if self.rebuild else None,
                         mtime_notes=self.mtime_notes, ptl_retries=self.ptl_retries)

    def _truncate(self, messages: Messages, session: Session) -> Compacted:
        """The fallback: stage 2's safe cut, down to half of what a summary may use; what it
        drops is archived first, like what a summary replaces."""
        cut = find_safe_cut(messages, (session.window - SUMMARY_MAX_TOKENS) // 2,
                            lambda m: estimate_tokens(m, session.system, session.tools))
        kept = messages[:1] + messages[cut:]
        assert_messages_valid(kept)
        archive(session.workspace, messages[1:cut])
        return Compacted(kept, "truncate")
