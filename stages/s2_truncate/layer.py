"""The stage-2 context layer: truncate before each request, check before sending (§14 stage 2).

When the estimate passes ``ratio`` of the window, drop old rounds down to half the window
(so truncation does not fire again on the very next turn), either naively or at round
boundaries; then run ``assert_messages_valid``. What is dropped is gone for good: the agent
will fetch it again when it needs it (§3.2 — truncation without a way back).
"""

from __future__ import annotations

from typing import Any

from s1_loop import estimate_tokens

from ctxlab.session import Session

from .cut import find_safe_cut
from .truncate import naive_truncate
from .valid import assert_messages_valid

Messages = list[dict[str, Any]]


class TruncationLayer:
    """Drop old history when it gets too big; ``naive=True`` shows the §9.2 failure."""

    def __init__(self, *, naive: bool = False, ratio: float = 0.8, keep: float = 0.5) -> None:
        self.naive = naive
        self.ratio = ratio
        self.keep = keep

    def _estimate(self, messages: Messages, session: Session) -> int:
        return estimate_tokens(messages, session.system, session.tools)

    def prepare(self, messages: Messages, session: Session) -> Messages:
        before = self._estimate(messages, session)
        if before <= self.ratio * session.window:
            return messages
        if self.naive:
            kept = naive_truncate(messages, lambda m: self._estimate(m, session),
                                  session.window, ratio=self.ratio)
        else:
            cut = find_safe_cut(messages, int(self.keep * session.window),
                                lambda m: self._estimate(m, session))
            kept = messages[:1] + messages[cut:]
            assert_messages_valid(kept)
        session.report("truncate", before - self._estimate(kept, session),
                       f"estimate {before} > {self.ratio:.0%} of {session.window}")
        return kept

    def admit(self, results: Messages, session: Session) -> Messages:
        return results
