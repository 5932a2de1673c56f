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
    ### BEGIN SOLUTION 2.4
    if not messages:
        return wording.EMPTY_MESSAGES
    if messages[0]["role"] != "user":
        return wording.FIRST_MESSAGE_ROLE
    turns: list[tuple[str, int, list[tuple[int, dict[str, Any]]]]] = []
    for i, message in enumerate(messages):
        blocks = [(i, b) for b in _blocks(message)]
        if turns and turns[-1][0] == message["role"]:
            turns[-1][2].extend(blocks)
        else:
            turns.append((message["role"], i, blocks))
    for t, (role, i, blocks) in enumerate(turns):
        if role == "assistant":
            uses = [b["id"] for _, b in blocks if b.get("type") == "tool_use"]
            following = turns[t + 1][2] if t + 1 < len(turns) else []
            answered = set()
            for _, block in following:
                if block.get("type") != "tool_result":
                    break
                answered.add(block["tool_use_id"])
            missing = [u for u in uses if u not in answered]
            if missing:
                return wording.USE_WITHOUT_RESULT.format(i=i, ids=", ".join(missing))
            continue
        results = [(k, b) for k, b in blocks if b.get("type") == "tool_result"]
        if not results:
            continue
        previous = [b["id"] for _, b in turns[t - 1][2] if b.get("type") == "tool_use"] \
            if t > 0 else []
        if not previous:
            return wording.RESULT_WITHOUT_USE.format(i=i)
        for k, block in results:
            if block["tool_use_id"] not in previous:
                j = _blocks(messages[k]).index(block)
                return wording.UNEXPECTED_TOOL_USE_ID.format(i=k, j=j, id=block["tool_use_id"])
    return None
    ### END SOLUTION


def assert_messages_valid(messages: list[dict[str, Any]]) -> None:
    """Raise ``InvalidHistory`` with the API's wording when ``messages`` break a rule."""
    problem = first_violation(messages)
    if problem is not None:
        raise InvalidHistory(problem)
