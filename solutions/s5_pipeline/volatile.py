"""Where the harness's volatile context goes: the dynamic zone, after every breakpoint, or —
the mistake the guide asks you to make once — the static zone (guide §14 stage 5 step 2, §5.2,
§6.3).

The harness adds the date, a clock, the todo list or the git status to every request
(``Session.dynamic``), by default as the last block of ``system``. The guide puts it in the
system prompt's dynamic zone, after the static zone's breakpoint. The API docs add a detail:
the cache holds a *prefix*, in the order tools → system → messages, so a value that changes on
every request (a clock with seconds) placed anywhere in ``system`` still rewrites every
message after it. Stage 5's dynamic zone is therefore the very end of the request, after the
newest message's breakpoint (``Session.dynamic_at_end``): nothing cached ever follows it.
``dynamic_zone="static"`` writes it into the static block instead, ahead of every breakpoint:
each new value is a new prefix, and the cache reads almost nothing from then on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ctxlab.session import Session

from .zones import zoned_system

ZONES = ("dynamic", "static")


@dataclass
class StaticZoneClock:
    """The naive variant: the volatile text is part of the cached static block."""

    static: str
    volatile: Callable[[], str]

    def system(self, dynamic: str) -> list[dict[str, Any]]:
        """The system prompt for this request, the current volatile text inside the static
        zone."""
        return zoned_system("\n".join(t for t in (self.static, self.volatile()) if t), dynamic)


def place(zone: str, static: str, session: Session) -> StaticZoneClock | None:
    """``zone="dynamic"``: have the session send the volatile context after the newest
    message; None. ``zone="static"``: take it over from the session, to write it into the
    static block on every request."""
    if zone not in ZONES:
        raise ValueError(f"unknown dynamic_zone {zone!r}; choose one of {ZONES}")
    if zone == "dynamic" or session.dynamic is None:
        session.dynamic_at_end = True
        return None
    volatile, session.dynamic = session.dynamic, None
    return StaticZoneClock(static, volatile)
