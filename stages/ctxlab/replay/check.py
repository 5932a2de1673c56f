"""The API-rule check a replay runs after every transformation (guide §9.2, §14 stage 2).

It asks the simulator — the lab bench's stand-in for the API — whether it would accept the
history as a request: first message from the user (R2), no empty text (R6), every
``tool_use`` answered at the start of the next message and no result without its call
(R7–R9), no prefill on models that reject it (R10), the latest thinking blocks unmodified
(R14, see ``signatures``). Those include every rule of stage 2's ``first_violation``, with the
same wording (both use ``ctxlab.sim.wording``).

Why not call ``s2_truncate.first_violation``: the lab bench sits below the stages and must not
depend on one. A learner replaying an unfinished stage 2 must still get a check they can trust,
and ``ctxlab`` imports stages only by number, to run them — never to judge them.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress, count
from operator import is_not
from typing import Any

from ctxlab.marks import same_content
from ctxlab.sim import validate
from ctxlab.sim.content import key
from ctxlab.sim.errors import APIError
from ctxlab.sim.schema import parse

from .signatures import SignatureBook

Messages = list[dict[str, Any]]
EARLIER = {"role": "user", "content": "(the earlier history, checked already)"}


def violation(messages: Messages, *, model: str,
              book: SignatureBook | None = None) -> str | None:
    """The first rule ``messages`` break as a request to ``model``, as the API words it."""
    body = {"model": model, "max_tokens": 1,
            "messages": book.trusted(messages) if book else messages}
    try:
        validate.check_messages(parse(body, {}))
    except APIError as error:
        return error.message
    return None


def _role(message: Any) -> Any:
    return message.get("role") if type(message) is dict else None


def _unmarked(message: Any, before: Any, same: Callable[[Any, Any], bool]) -> bool:
    """Whether ``message`` is ``before`` with its breakpoints taken off (the same but for
    them, ``marks.same_content`` or ``same``, a memo of it, and none left): no rule asks for
    a breakpoint, so what passed with them passes without (a layer moves its breakpoint on
    every request)."""
    content = message.get("content") if type(message) is dict else None
    return type(content) is list and type(before) is dict and not any(
        type(b) is dict and "cache_control" in b for b in content) and same(message, before)


def _results_cleared(message: Any, before: Any) -> bool:
    """Whether ``message`` is ``before`` with only some tool results' contents replaced by
    text (a batch of clearing): no rule looks inside a result's text, so what passed before
    passes now. Every other value is the same JSON (``sim.content.key``: ``true`` is not
    ``1``)."""
    if type(message) is not dict or type(before) is not dict or message.keys() != before.keys():
        return False
    blocks, was = message.get("content"), before.get("content")
    return type(blocks) is list and type(was) is list and len(blocks) == len(was) and all(
        _same_json(message[k], before[k]) for k in message if k != "content") and all(
        map(_cleared_or_same, blocks, was))


def _cleared_or_same(block: Any, before: Any) -> bool:
    """Whether ``block`` is ``before``, or that tool result with its content replaced by text."""
    if block is before:
        return True
    if type(block) is not dict or type(before) is not dict or block.keys() != before.keys():
        return False
    cleared = block.get("type") == "tool_result" and type(block.get("content")) is str
    return all(_same_json(block[k], before[k]) for k in block if not (cleared and k == "content"))


def _same_json(value: Any, other: Any) -> bool:
    """Whether two values are the same object or the same JSON."""
    return value is other or key(value) == key(other) is not None


def _starts_round(messages: Messages, i: int) -> bool:
    """Whether an assistant message that follows a user message sits at ``i``."""
    return _role(messages[i]) == "assistant" and _role(messages[i - 1]) == "user"


def _round(messages: Messages, first: int, last: int) -> tuple[int, int]:
    """The rounds that hold ``messages[first:last + 1]``, as one span [start, end)."""
    while first > 0 and not _starts_round(messages, first):
        first -= 1
    last += 1
    while last < len(messages) and not _starts_round(messages, last):
        last += 1
    return first, last


class Checker:
    """``violation`` for a history that changes a little between checks, in time that grows
    with what changed, not with the history.

    A *round* is an assistant message that follows a user message, up to the next such one (the
    messages before the first round are a round of their own). Every rule but R2 looks inside
    one round: a block (R6), a tool_use and the next message (R7–R9, with same-role messages
    merged, R3: merging never crosses a round's edge), the last message (R10), the latest
    assistant message (R14). So after a check that passed, only the rounds holding a message
    that changed since (not the same object and not equal to it, nor the same with its
    breakpoints taken off or with tool results' contents replaced by text, which no rule looks
    at; a message whose role changed also touches its neighbours' rounds) and the rounds of the
    new messages, or else the last round, are checked again, put one after another behind a
    stand-in first user message (R2 held before, for the same first message): no rule links two
    rounds, and they keep their order, so the first rule broken is the one a whole check finds.
    A check that finds one is done again on the whole history, which words it with the whole
    history's message numbers; the next check after it is a whole one too.
    """

    def __init__(self, *, model: str, book: SignatureBook | None = None,
                 same: Callable[[Any, Any], bool] = same_content) -> None:
        self.model, self.book, self.same = model, book, same  # ``same``: a memo of it
        self.checked: Messages = []

    def __call__(self, messages: Messages) -> str | None:
        """The first rule ``messages`` break, as ``violation`` words it."""
        spans = self.spans(messages) if self.checked and messages else None
        problem = None
        if spans != []:
            sent = messages if spans is None else [EARLIER] * (spans[0][0] > 0) + [
                m for start, end in spans for m in messages[start:end]]
            problem = violation(sent, model=self.model, book=self.book)
            if problem is not None and spans is not None:
                problem = violation(messages, model=self.model, book=self.book)
        self.checked = [] if problem is not None else list(messages)
        return problem

    def spans(self, messages: Messages) -> list[tuple[int, int]]:
        """The rounds of ``messages`` to check again since the last check passed, as
        [start, end) spans in order, none overlapping; [] when nothing changed."""
        old, size = self.checked, len(messages)
        regions = []
        for i in compress(count(), map(is_not, messages, old)):  # C speed: stops at a change
            if messages[i] != old[i] and not _unmarked(messages[i], old[i], self.same) \
                    and not _results_cleared(messages[i], old[i]):
                moved = _role(messages[i]) != _role(old[i])
                regions.append((max(i - moved, 0), min(i + moved, size - 1)))
        if not regions and len(old) == size:
            return []
        regions.append((min(len(old), size - 1), size - 1))  # the new messages, or the last
        # round, where R10 and R14 look
        spans: list[tuple[int, int]] = []
        for first, last in regions:  # in order of ``first``
            start, end = _round(messages, first, last)
            if spans and start < spans[-1][1]:
                start, end = spans[-1][0], max(end, spans.pop()[1])
            spans.append((start, end))
        return spans
