"""Each turn's work on the history, done once per message: a turn costs what it adds.

The loop appends: the history ``prepare`` is given is, but for its last few messages, the one
it was given last turn. The work on the old messages — the frozen decisions applied
(``Ledger.apply``), the running sum of their estimates (§9.5), stale breakpoints removed
(``mark_newest``) — was done then. ``Prepared`` keeps those results by position and redoes
only the rest, so a turn costs what it adds, not the length of the session. The results are
exactly those of the full functions: the same messages, the same sum in the same order.

What is checked before anything is reused:

- the prefix: the first ``k`` messages must be, position by position, the message objects
  ``prepare`` was given last turn, or equal to them. That is one list comparison at C speed:
  a pointer comparison per message, and a comparison by value only where the object differs.
  ``k`` always stops before last turn's newest message, whose breakpoint moves on, and it is
  sought among the ``LOOKBACK`` positions before that one: in a normal turn only those can
  differ (the message whose breakpoint was removed). A message replaced, removed or inserted,
  or messages reordered: the prefix ends at the first of them, and when that lies further
  back, everything is done again. A list cut short keeps the prefix it still shares;
- the ledger: a decision recorded since last turn for a result outside the messages done
  again (an old result cleared by hand, say) changes old messages, so everything is done
  again; so it is when the ledger is another one.

Not checked: a message object edited in place after ``prepare`` saw it. The history is
append-only, as the API's own transcript is: to change an old message, put a new message
object in its place.
"""

from __future__ import annotations

from array import array
from itertools import accumulate
from typing import Any

from .estimate import estimate_tokens, message_tokens, request_tokens
from .ledger import Ledger
from .zones import mark_newest

Messages = list[dict[str, Any]]
LOOKBACK = 8  # how far back from last turn's newest message the prefix may end


class Prepared:
    """What ``prepare`` computed for each message of the history it was given last turn."""

    def __init__(self) -> None:
        self.given: Messages = []  # the messages given last turn (a copy of the list)
        self.applied: Messages = []  # each with the frozen decisions applied
        self.totals = array("d")  # the running sum of their estimates, message by message
        self.marked: Messages = []  # each as ``mark_newest`` passes it on (the first ones)
        self.ledger: Ledger | None = None
        self.recorded = 0  # how many decisions that ledger had recorded then

    def apply(self, messages: Messages, ledger: Ledger) -> Messages:
        """``ledger.apply(messages)``, reusing last turn's work on the unchanged prefix."""
        keep = self._unchanged(messages, ledger)
        self.given = list(messages)
        self.applied = self.applied[:keep] + ledger.apply(messages[keep:])
        running = accumulate(map(message_tokens, self.applied[keep:]),
                             initial=self.totals[keep - 1] if keep else 0.0)
        next(running)  # the sum so far, already in ``totals``
        del self.totals[keep:]
        self.totals.extend(running)
        del self.marked[keep:]
        self.ledger, self.recorded = ledger, len(ledger.recorded)
        return self.applied

    def estimate(self, messages: Messages, system: list[dict[str, Any]] | None,
                 tools: list[dict[str, Any]] | None) -> int:
        """``estimate_tokens``, from the running sum when ``messages`` is what ``apply``
        returned last."""
        if messages is not self.applied:
            return estimate_tokens(messages, system, tools)
        return request_tokens(self.totals[-1] if self.totals else 0.0, system, tools)

    def mark(self, messages: Messages) -> Messages:
        """``mark_newest(messages)``, done only for the messages not marked before when
        ``messages`` is what ``apply`` returned last. A history that a layer rewrote is marked
        whole, and nothing of this turn is kept for the next."""
        if messages is not self.applied:
            self.given = []
            return mark_newest(messages)
        self.marked += mark_newest(self.applied[len(self.marked):])
        return list(self.marked)  # a copy: the caller appends to it

    def _unchanged(self, messages: Messages, ledger: Ledger) -> int:
        """How many leading messages can be taken from last turn (see the module docs)."""
        newest = min(len(self.given), len(messages)) - 1
        keep = next((k for k in range(newest, max(newest - LOOKBACK, 0), -1)
                     if messages[:k] == self.given[:k]), 0)
        changed = set(ledger.recorded[self.recorded:])
        if ledger is not self.ledger or not changed <= _result_ids(messages[keep:]):
            return 0
        return keep


def _result_ids(messages: Messages) -> set[str]:
    """The ids of the tool results in ``messages``."""
    return {b["tool_use_id"] for m in messages if not isinstance(m["content"], str)
            for b in m["content"] if b.get("type") == "tool_result"}
