"""Module-level state and sub-agents (§9.3; appendix B.20): a naive layer and the check.

A child runs in the parent's process, so anything a layer keeps at module level is one
object for the parent and all its children: a child's results land in the parent's ledger,
and a later clearing pass would remove tool results that do not exist in the parent's own
conversation (the guide's account of it). ``make_layer()`` here is that naive layer: it
notes each result it admits in a module-level list. ``make_layer(shared=False)`` keeps the
list on the instance, as the stages do. ``foreign_ids`` finds, in any object, the tool-use
ids that do not belong to a given conversation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

_ADMITTED: list[str] = []  # the pitfall: one ledger for every layer in the process


class LedgerLayer:
    """Keeps everything; notes the id of every result it admits (``ledger``)."""

    def __init__(self, *, shared: bool = True) -> None:
        self.ledger: list[str] = _ADMITTED if shared else []

    def prepare(self, messages: list[dict[str, Any]], session: Any) -> list[dict[str, Any]]:
        return messages

    def admit(self, results: list[dict[str, Any]], session: Any) -> list[dict[str, Any]]:
        self.ledger += [r["tool_use_id"] for r in results if r.get("type") == "tool_result"]
        return results


def make_layer(shared: bool = True) -> LedgerLayer:
    """The naive layer (``shared=True``) or its fix."""
    return LedgerLayer(shared=shared)


def _strings(value: Any, seen: set[int], depth: int = 0) -> Iterator[str]:
    if isinstance(value, str):
        yield value
        return
    if id(value) in seen or depth > 8 or callable(value) and not hasattr(value, "__dict__"):
        return
    seen.add(id(value))
    if isinstance(value, dict):
        items: Any = [*value.keys(), *value.values()]
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = value
    else:
        items = list(getattr(value, "__dict__", {}).values())
    for item in items:
        yield from _strings(item, seen, depth + 1)


def tool_ids(value: Any) -> set[str]:
    """Every tool-use id (``toolu_…``) held anywhere in ``value``."""
    return {s for s in _strings(value, set()) if s.startswith("toolu_")}


def foreign_ids(value: Any, messages: list[dict[str, Any]]) -> set[str]:
    """The tool-use ids ``value`` holds that ``messages`` (a conversation) never had."""
    return tool_ids(value) - tool_ids(messages)
