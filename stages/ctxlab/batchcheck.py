"""The API-rule check of a layer's output, done on what the layer changed (issue 49).

Stage 5 checks every history a layer returns before it is sent (stage 2's
``first_violation``, §9.2): roles, every call answered by its result at the start of the next
message, by id. A batch of clearing changes only the text of some old tool results, which no
rule looks at, so checking the whole history again after each batch finds nothing the batch
did, at the cost of a pass over every message. ``check_changed`` checks whole any other
output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

Messages = list[dict[str, Any]]


class Applied(Protocol):
    """What ``prepare`` worked on this turn (``prepared.Prepared``)."""

    applied: Messages

    def swapped(self, messages: Messages) -> list[int] | None: ...


def check_changed(check: Callable[[Messages], None], prepared: Applied,
                  messages: Messages) -> None:
    """The API-rule check of a layer's output (stage 2's ``first_violation``: roles, calls
    and their results, by id and place), done whole unless the output is the history ``apply``
    returned with only some tool results' contents changed (a batch of clearing): that
    changes nothing the rules look at, so there is nothing the layer did to find."""
    swapped = prepared.swapped(messages)
    if swapped is None or not all(_contents_only(messages[i], prepared.applied[i])
                                  for i in swapped):
        check(messages)


def _contents_only(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """Whether ``new`` is ``old`` with only the ``content`` of tool results changed."""
    if isinstance(new["content"], str) or isinstance(old["content"], str):
        return new == old
    return new.keys() == old.keys() and new["role"] == old["role"] and len(
        new["content"]) == len(old["content"]) and all(
        a == b or (a.get("type") == b.get("type") == "tool_result" and a.keys() == b.keys()
                   and all(a[k] == b[k] for k in a if k != "content"))
        for a, b in zip(new["content"], old["content"], strict=True))
