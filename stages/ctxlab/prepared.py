"""What ``prepare`` computed for each message last turn, reused (``ctxlab.incremental``).

The loop appends: the history ``prepare`` is given is, but for its last few messages, the one
it was given last turn. ``Prepared`` keeps last turn's results by position and redoes only the
rest.

What is checked before anything is reused:

- the messages: the history given is compared with last turn's position by position, object
  by object (a pointer comparison per message; by value only where the object differs). The
  messages found equal are taken from last turn, and so is one equal but for its breakpoints
  (``marks.same_content``: last turn's newest, which comes back with the breakpoint ``mark``
  put on it; ``mark`` takes every breakpoint off and sets its own, so what is sent is the
  same), which is only marked again; the few that differ are done again one by one, and the
  new ones at the end. More than ``REPLACED`` differ (messages removed, inserted or
  reordered): everything from the first of them is
  done again. A list cut short keeps what it still shares;
- the ledger: a decision recorded since last turn for an older result (an old result cleared
  by hand, say) changes the message holding it, which is done again; everything is, when the
  ledger is another one;
- the pipeline's own output: a history that a batch of clearing rewrote (the same messages,
  at most ``REPLACED`` of them replaced) is taken as that turn's, its decisions applied in it;
  one that a layer rewrote otherwise (snip, a summary) is marked whole, and nothing of that
  turn is kept for the next.

Not checked: a message object edited in place (see ``ctxlab.incremental``).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from itertools import accumulate, compress, count
from operator import is_not
from typing import Any, Protocol

from .marks import same_content
from .permessage import ByObject

Messages = list[dict[str, Any]]
REPLACED = 64  # messages replaced up to which the others are taken from last turn


class Ledger(Protocol):
    """The frozen decisions (stage 5's ``Ledger``): the ids recorded so far, in order."""

    recorded: list[str]


class Prepared:
    """What ``prepare`` computed for each message of the history it was given last turn.

    ``apply`` and ``mark`` are the full functions; ``share`` is one message's part of the
    estimate and ``total`` the estimate from the sum of those parts, in order (the estimate of
    any list of messages: each message's share is computed once here, so ``share`` need not
    remember it).
    """

    def __init__(self, apply: Callable[[Messages, Any], Messages],
                 mark: Callable[[Messages], Messages], *,
                 share: Callable[[dict[str, Any]], float], total: Callable[[float], int]) -> None:
        self.full_apply, self.full_mark = apply, mark
        self.share, self.total = share, total
        self.given: Messages = []  # the messages given last turn (a copy of the list)
        self.applied: Messages = []  # each with the frozen decisions applied
        self.shares = array("d")  # their estimates, message by message
        self.totals = array("d")  # the running sum of those
        self.marked: Messages = []  # each as ``mark`` passes it on (the first ones)
        self.ledger: Ledger | None = None
        self.recorded = 0  # how many decisions that ledger had recorded then
        self.redone = 0  # where the messages ``apply`` worked on last began
        self.fresh = ByObject()  # the shares of messages ``apply`` did not return

    def apply(self, messages: Messages, ledger: Ledger) -> Messages:
        """``apply(messages, ledger)``, reusing last turn's work on the unchanged prefix."""
        keep, redo, remark = self._unchanged(messages, ledger)
        self.given = list(messages)
        self.fresh.forget(messages)
        applied = self.applied[:keep]
        for i in redo:
            applied[i] = self.full_apply([messages[i]], ledger)[0]
            self.shares[i] = self.share(applied[i])
        self.applied = applied + self.full_apply(messages[keep:], ledger)
        del self.shares[keep:]
        self.shares.extend(map(self.share, self.applied[keep:]))
        first = redo[0] if redo else keep
        self._sum_from(first)
        del self.marked[min(first, remark):]
        self.ledger, self.recorded, self.redone = ledger, len(ledger.recorded), keep
        return self.applied

    def new(self, messages: Messages) -> Messages:
        """The messages ``apply`` worked on last, when ``messages`` is what it returned:
        the rest were in last turn's history already. Otherwise all of them."""
        return messages[self.redone:] if messages is self.applied else messages

    def estimate(self, messages: Messages) -> int:
        """``estimate(messages)``, from the running sum when ``messages`` is what ``apply``
        returned last, or that with a few messages replaced (a batch of clearing: the sum
        plus what each replacement changed)."""
        swapped = self.swapped(messages)
        if swapped is None:
            return self._summed(messages)
        return self.total(self.totals[-1] + sum(
            self._share(messages[i]) - self.shares[i] for i in swapped))

    def estimate_part(self, messages: Messages, start: int, stop: int | None = None) -> int:
        """``estimate(messages[start:stop])``, from the running sum when ``messages`` is what
        ``apply`` returned last (the difference of two sums: equal to the sum of the part
        within a rounding of the floats, which the estimate's integer rounding absorbs but
        at exact halves)."""
        if messages is not self.applied:
            return self._summed(messages[start:stop])
        start, stop, _ = slice(start, stop).indices(len(messages))
        if stop <= start:
            return self.total(0.0)
        return self.total(self.totals[stop - 1] - (self.totals[start - 1] if start else 0.0))

    def _share(self, message: dict[str, Any]) -> float:
        """``share(message)`` for a message ``apply`` did not return (a batch's copy, whose
        share a turn asks for up to three times: the batch's arithmetic, its size, its
        adoption, and the next turns again while the band's look keeps that copy waiting,
        ``settled``), worked out once per message object."""
        return self.fresh.get(message, self.share)

    def _summed(self, messages: Messages) -> int:
        """The estimate of ``messages``: their shares added in order, from 0."""
        running = 0.0
        for message in messages:
            running += self._share(message)
        return self.total(running)

    def mark(self, messages: Messages) -> Messages:
        """``mark(messages)``, done only for the messages not marked before when ``messages``
        is what ``apply`` returned last. A history that a batch rewrote (a few messages
        replaced) is taken as what ``apply`` returned (``_adopt``); one that a layer rewrote
        otherwise is marked whole, and nothing of this turn is kept for the next."""
        if messages is not self.applied:
            swapped = self.swapped(messages)
            if swapped is None:
                self.given = []
                return self.full_mark(messages)
            self._adopt(messages, swapped)
        self.marked += self.full_mark(self.applied[len(self.marked):])
        return list(self.marked)  # a copy: the caller appends to it

    def swapped(self, messages: Messages) -> list[int] | None:
        """Where ``messages`` replaces a message of what ``apply`` returned last, or None when
        it is not that history with at most ``REPLACED`` messages replaced."""
        if not self.totals or len(messages) != len(self.applied):
            return None
        if messages is self.applied:
            return []
        swapped = list(compress(count(), map(is_not, messages, self.applied)))
        return swapped if len(swapped) <= REPLACED else None

    def _adopt(self, messages: Messages, swapped: list[int]) -> None:
        """Take a batch's history as what ``apply`` returned: the decisions it froze are
        applied in it, so next turn's history, this one and a new round, starts from it."""
        if swapped:
            for i in swapped:
                self.shares[i] = self._share(messages[i])
            self._sum_from(swapped[0])
            del self.marked[swapped[0]:]
        self.applied, self.given = list(messages), list(messages)
        self.recorded = len(self.ledger.recorded) if self.ledger is not None else 0

    def _sum_from(self, start: int) -> None:
        """The running sum again from message ``start`` on, in the same order as from 0."""
        running = accumulate(self.shares[start:],
                             initial=self.totals[start - 1] if start else 0.0)
        next(running)  # the sum so far, already in ``totals``
        del self.totals[start:]
        self.totals.extend(running)

    def _unchanged(self, messages: Messages, ledger: Ledger) -> tuple[int, list[int], int]:
        """How many leading messages can be taken from last turn, which of them must be
        done again, in order, and from where they must be marked again (see the module
        docs)."""
        if ledger is not self.ledger:
            return 0, [], 0
        shared = min(len(self.given), len(messages))
        differ = {i for i in compress(count(), map(is_not, messages, self.given))
                  if not same_content(messages[i], self.given[i])}
        remark = shared - 1 if 0 < shared == len(self.given) else shared  # last turn's
        # newest: its breakpoint moves on
        changed = set(ledger.recorded[self.recorded:])
        if changed:  # but those of the new messages, done anyway
            changed -= {b.get("tool_use_id") for m in messages[shared:]
                        if not isinstance(m["content"], str) for b in m["content"]}
        if changed:  # a decision on an older result: the message holding it
            differ |= {i for i, m in enumerate(messages[:shared]) if _holds(m, changed)}
        redo = sorted(differ)
        if len(redo) > REPLACED:
            return redo[0], [], redo[0]
        return shared, redo, remark


def _holds(message: dict[str, Any], ids: set[str]) -> bool:
    """Whether ``message`` holds the result of one of ``ids``."""
    return not isinstance(message["content"], str) and any(
        b.get("type") == "tool_result" and b.get("tool_use_id") in ids
        for b in message["content"])
