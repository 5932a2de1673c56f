"""The last resort, when a request is rejected as too long despite the pipeline (excerpt ch8.4).

It should never happen, and it does: the estimate under-counts a kind of text it was never
fitted on, a tool result arrives larger than any budget foresaw. The API's rejection states
the true size ("prompt is too long: 212,000 tokens > 200,000 maximum"), so the cut is sized
with the API's own figure: keep the task and the newest rounds — the latest tool results —
and drop the oldest rounds until the history fits below the window, less the output budget.
Then retry exactly once: a second compaction would hardly shrink the context further, so a
second rejection ends in a typed error instead of a loop that burns calls (ch8.4).

The cut is applied to the history itself, so the next turn starts from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import anthropic
from s2_truncate import find_safe_cut

from ctxlab.session import Session

Messages = list[dict[str, Any]]
_SIZE = re.compile(r"prompt is too long: (\d+) tokens > (\d+) maximum")


class StillTooLong(anthropic.BadRequestError):
    """The one retry after the last-resort cut was rejected as too long as well (ch8.4)."""


class LastResort:
    """``Session.recover`` for stage 5: cut harder once, retry once, then ``StillTooLong``."""

    def __init__(self, session: Session, estimate: Callable[[Messages], int]) -> None:
        self.session = session
        self.estimate = estimate
        self.used = 0

    def __call__(self, messages: Messages, error: anthropic.APIError) -> Any:
        found = _SIZE.search(str(error))
        if not isinstance(error, anthropic.BadRequestError) or found is None:
            raise error
        actual, window = int(found.group(1)), int(found.group(2))
        scale = actual / max(self.estimate(messages), 1)  # how far the estimate was off
        budget = window - self.session.max_tokens
        cut = find_safe_cut(messages, budget, lambda m: round(self.estimate(m) * scale))
        kept = messages[:1] + messages[cut:]
        freed = actual - round(self.estimate(kept) * scale)
        messages[:] = kept  # the loop's history: the next turn starts from the cut
        self.used += 1
        self.session.report("fallback", freed, f"prompt is too long despite the pipeline: "
                                               f"{actual:,} > {window:,} (ch8.4)")
        self.session.recover = None  # exactly one retry
        try:
            return self.session.create(messages)
        except anthropic.BadRequestError as again:
            if _SIZE.search(str(again)) is None:
                raise
            raise StillTooLong(f"still too long after the last-resort cut: {again}",
                               response=again.response, body=again.body) from again
        finally:
            self.session.recover = self
