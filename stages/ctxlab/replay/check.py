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

import re
from typing import Any

from ctxlab.sim import validate
from ctxlab.sim.errors import APIError
from ctxlab.sim.schema import parse

from .measure import identical_prefix
from .signatures import SignatureBook

EARLIER = {"role": "user", "content": "(the earlier history, checked already)"}


def violation(messages: list[dict[str, Any]], *, model: str,
              book: SignatureBook | None = None) -> str | None:
    """The first rule ``messages`` break as a request to ``model``, as the API words it."""
    body = {"model": model, "max_tokens": 1,
            "messages": book.trusted(messages) if book else messages}
    try:
        validate.check_messages(parse(body, {}))
    except APIError as error:
        return error.message
    return None


class Checker:
    """``violation`` for a history that grows, in time linear in the session.

    Every rule but R2 is local: a tool_use and the next message (R7–R9), a block (R6), the
    last message (R10), the latest assistant message (R14). So after a check that passed, only
    the messages that changed since are checked again, from the assistant message before the
    first of them, behind a stand-in first user message (R2 is checked apart); the message
    numbers in the API's words are those of the whole history. After a violation, the next
    check is a whole one.
    """

    def __init__(self, *, model: str, book: SignatureBook | None = None) -> None:
        self.model, self.book = model, book
        self.checked: list[dict[str, Any]] = []

    def __call__(self, messages: list[dict[str, Any]]) -> str | None:
        """The first rule ``messages`` break, as ``violation`` words it."""
        changed = identical_prefix(self.checked, messages)
        start = next((i for i in range(min(changed, len(messages) - 1), 0, -1)
                      if messages[i]["role"] == "assistant"), 0)
        if start == 0 or messages[0]["role"] != "user":
            problem = violation(messages, model=self.model, book=self.book)
        else:
            problem = violation([EARLIER, *messages[start:]], model=self.model, book=self.book)
            if problem is not None:
                problem = re.sub(r"messages\.(\d+)",
                                 lambda m: f"messages.{int(m.group(1)) + start - 1}", problem)
        self.checked = [] if problem is not None else list(messages)
        return problem
