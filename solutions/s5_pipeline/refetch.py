"""Results the agent fetched again after they were cleared (§3.2, §7.4, §7.5).

A cleared result is recoverable: the agent can run the tool again. When it does, the clearing
was premature, and that is evidence about this agent on this task: its working set holds more
results than were kept. The pipeline learns from it twice: microcompact keeps one more recent
result per result fetched again (so a result the agent keeps coming back to is not cleared in
a loop, §3.2's thrash), and a batch weighs the chance of a fetch again (``batch``).

A fetch again is a call with the same tool and the same input as a call whose result
microcompact cleared, read from the history alone (a resumed session counts the same).
"""

from __future__ import annotations

from collections.abc import Collection

from .reads import Call


def fetched_again(calls: list[Call], cleared: Collection[str]) -> list[str]:
    """The ids of the calls (``calls``: each call's id and what it asks, ``reads.calls``), not
    cleared themselves, that repeat a call whose result was cleared (``cleared``), in order."""
    cleared = set(cleared)
    if not cleared:
        return []
    gone = {call for ident, call in calls if ident in cleared}
    return [ident for ident, call in calls if call in gone and ident not in cleared]
