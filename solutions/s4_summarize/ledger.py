"""How big is the history now? The last reported size, corrected (guide §9.5).

The only exact figure is the ``usage`` of the last response, and it describes the request
sent back then. Since then the answer and the tool results were added, and a compaction may
have removed far more: ``usage`` shows neither. Read as it is, it makes the layer compact
again right after a compaction, or not at all when it should. So the size is the reported
figure, plus an estimate of what was added since, minus what was freed since — the freed
tokens are carried forward explicitly, as every local change between two observations must
be.
"""

from __future__ import annotations

from typing import Any

from s1_loop import estimate_tokens, reported_tokens

from ctxlab.session import Session

Messages = list[dict[str, Any]]


class TokenLedger:
    """The current size of the history, from the last usage and what changed locally since."""

    def __init__(self) -> None:
        self._usage: Any = None
        self._base = 0  # tokens of the history up to ``_anchor`` messages
        self._anchor = 0
        self._handed = 0  # messages in the history last handed to the loop (and sent)
        self.freed = 0  # tokens freed since ``_base`` was taken

    def size(self, messages: Messages, session: Session) -> int:
        """Tokens of ``messages`` as the next request would carry them."""
        usage = session.last_usage
        if usage is None:
            return estimate_tokens(messages, session.system, session.tools)
        if usage is not self._usage:  # a new response: its usage is the new base
            self._usage, self._base, self._anchor = usage, reported_tokens(usage), self._handed
            self.freed = 0
        return self._base + estimate_tokens(messages[self._anchor:]) - self.freed

    def replaced(self, size: int, freed: int, messages: Messages) -> None:
        """A compaction turned a history of ``size`` tokens into ``messages``, freeing
        ``freed``."""
        self._base, self._anchor, self.freed = size, len(messages), freed

    def handed(self, messages: Messages) -> None:
        """``messages`` is the history the next request sends."""
        self._handed = len(messages)
