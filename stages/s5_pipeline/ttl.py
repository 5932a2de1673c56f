"""How long the static zone is cached: 5 minutes until the session idles, then an hour (§6.8,
API notes §1.6–1.7).

A cache write for 5 minutes costs 1.25× the input price, one for an hour 2×; a read costs
0.1× and refreshes either entry. While requests follow each other within 5 minutes, the 5-minute
entry never expires, so the hour's extra 0.75× buys nothing: a short task pays it and gets no
read it would not have had. It pays once the session idles past 5 minutes — the static zone is
then read instead of written again (1.25×) — and only this session can tell whether it does.
So the static breakpoints start on 5 minutes, and from the first request after an idle past
the TTL (the cache certainly cold, §6.8) they are written for an hour: a session that has
paused once is likely to pause again. ``static_ttl="1h"`` keeps the hour from the first request.

The choice is a frozen decision (§6.9): it is noted in the session log, so a resumed session
sends the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ctxlab.session import Session

Note = Callable[[str, dict[str, Any]], None]

HOUR = {"type": "ephemeral", "ttl": "1h"}
FIVE_MINUTES = {"type": "ephemeral"}
CHOICES = ("auto", "1h")
IDLED = "idled"  # the session-log name of the note: the session has idled past the TTL


class StaticTTL:
    """The static zone's TTL for one session: ``"auto"`` (5 minutes until it idles) or
    ``"1h"``."""

    def __init__(self, choice: str = "auto") -> None:
        if choice not in CHOICES:
            raise ValueError(f"unknown static_ttl {choice!r}; choose one of {CHOICES}")
        self.hour = choice == "1h"

    def load(self, notes: list[dict[str, Any]]) -> None:
        """Take the choice an earlier process noted (``IDLED``), on resume."""
        self.hour = self.hour or bool(notes)

    def apply(self, session: Session, note: Note, *, cold: bool) -> None:
        """Give the static breakpoints (the last tool's, the static system block's) this
        session's TTL; ``cold``: the request follows an idle past the 5-minute TTL, which
        ``note`` (the session log's) records the first time."""
        if cold and not self.hour:
            note(IDLED, {"ttl": "1h"})
            self.hour = True
        ttl = HOUR if self.hour else FIVE_MINUTES
        session.tools = with_ttl(session.tools, ttl)
        session.system = with_ttl(session.system, ttl)


def with_ttl(blocks: list[dict[str, Any]], ttl: dict[str, str]) -> list[dict[str, Any]]:
    """``blocks`` with every breakpoint set to ``ttl`` (a block without one is passed on);
    ``blocks`` themselves when every breakpoint has it already: the prefix stays the same
    objects from one request to the next, so what is worked out from it is kept."""
    if all(b["cache_control"] == ttl for b in blocks if "cache_control" in b):
        return blocks
    return [dict(b, cache_control=dict(ttl)) if "cache_control" in b else b for b in blocks]
