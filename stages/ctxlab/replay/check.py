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

from typing import Any

from ctxlab.sim import validate
from ctxlab.sim.errors import APIError
from ctxlab.sim.schema import parse

from .signatures import SignatureBook


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
