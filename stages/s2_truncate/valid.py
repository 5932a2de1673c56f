# Generated from solutions/s2_truncate/valid.py — your exercise: edit it.
# `ctxlab workbook reset 2` regenerates it (your version is backed up first).
"""Exercise 2.4 — ``assert_messages_valid``: catch a broken history before the API does
(guide §14 stage 2, §9.2).

Run it before every request. It checks the rules a context layer can break when it removes or
rewrites messages, and words each violation exactly as the API would, so a failing check and
a 400 read the same. The texts come from ``ctxlab.sim.wording``.
"""

from __future__ import annotations

from typing import Any

from ctxlab.sim import wording


class InvalidHistory(ValueError):
    """A history the API would reject; the message is the API's."""


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def first_violation(messages: list[dict[str, Any]]) -> str | None:
    """The first broken rule in ``messages``, as the API words it, or None when valid.

    Rules: the first message is from the user (R2); a user message with ``tool_result`` blocks
    follows an assistant message with ``tool_use`` blocks (R7) whose ids include every result's
    ``tool_use_id`` (R8); every ``tool_use`` is answered by ``tool_result`` blocks at the start
    of the very next message (R9). Consecutive same-role messages count as one (R3); report
    indices as in ``messages``.
    """
    raise NotImplementedError("Exercise 2.4 — first_violation(): see notebooks/02_truncate.ipynb")


def assert_messages_valid(messages: list[dict[str, Any]]) -> None:
    """Raise ``InvalidHistory`` with the API's wording when ``messages`` break a rule."""
    problem = first_violation(messages)
    if problem is not None:
        raise InvalidHistory(problem)
