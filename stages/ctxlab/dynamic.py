"""The volatile part of each request: date, clock, todo list, git status (guide §5.2, §6.3).

A real harness sends, with every request, a little context that is true *now*: today's date,
sometimes the time, the open todo items, the state of the working tree. The runner renders it
from the simulated clock and what the run has done so far; ``Session.create`` sends it as the
last system block, so stage 1's loop needs to know nothing about it. Where it sits decides
what the prompt cache can keep: after the static zone's breakpoint it costs nothing cached
(stage 5 zones it so); inside the static zone it changes the cached prefix on every request
that sees a new value (§6.3: "the date in the static zone breaks the cache").
"""

from __future__ import annotations

import time
from collections.abc import Sequence

KINDS = ("date", "clock", "todo", "git-status")
EPOCH = 1_772_441_647.0
"""Where the simulated clock's zero lies: 2026-03-02 08:54:07 UTC."""


def render(kinds: Sequence[str], when: float, *, calls: int = 0,
           changed: Sequence[str] = ()) -> str:
    """The dynamic context for a request at ``when`` (a Unix time), after ``calls`` tool calls
    that changed the files ``changed``; '' for no kinds."""
    moment = time.gmtime(when)
    lines = []
    for kind in kinds:
        if kind == "date":
            lines.append(f"Today's date: {time.strftime('%Y-%m-%d', moment)}")
        elif kind == "clock":
            lines.append(f"Current time: {time.strftime('%H:%M:%S', moment)} UTC")
        elif kind == "todo":
            lines.append(f"Todo list: {calls} tool call(s) made so far; keep going until "
                         "the checks pass")
        elif kind == "git-status":
            files = " ".join(f"M {path}" for path in changed) or "clean"
            lines.append(f"git status: {files}")
        else:
            raise ValueError(f"unknown dynamic context {kind!r}; choose from {KINDS}")
    return "\n".join(lines)
