"""A content block as a hashable key, and the block back from its key (issue 49).

Every request reaches the simulator as fresh JSON, so what it memoises per block (the render's
token count and digest) must be keyed by content, never by identity. ``key`` turns a JSON value
into nested tuples that are equal exactly when the values are: each non-string value is tagged
with its JSON type, so ``true``, ``1`` and ``1.0`` are three keys, as they are three texts; a
float is keyed by its ``repr``, so ``0.0`` and ``-0.0`` differ too. Keys hold only strings,
numbers and tuples, which the cyclic garbage collector stops tracking, so a memo of them does
not lengthen its full passes. ``value`` rebuilds the value from its key, with
the same types and the same key order, so a memo that computes from the key alone cannot answer
for another block than the one it was given. What is not JSON (a tuple, a ``str`` subclass, an
object) has no key: the caller computes it directly.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

TAGS = {bool: "bool", int: "int", type(None): "null"}


def key(value: Any) -> Hashable | None:
    """The hashable key of a JSON value, or None when it is not one."""
    kind = type(value)
    if kind is str:
        return value
    if kind is dict:
        return _items(value, None)
    if kind is list:
        items = []
        for item in value:
            found = item if type(item) is str else key(item)
            if found is None:
                return None
            items.append(found)
        return "list", tuple(items)
    if kind is float:
        return "float", repr(value)
    tag = TAGS.get(kind)
    return None if tag is None else (tag, value)


def block_key(block: dict[str, Any]) -> Hashable | None:
    """The key of a content block without its ``cache_control`` (a breakpoint is not content:
    it changes neither the block's tokens nor its digest), or None."""
    return _items(block, "cache_control") if type(block) is dict else None


def _items(value: dict[str, Any], skip: str | None) -> Hashable | None:
    items = []
    for name, item in value.items():
        if name == skip:
            continue
        found = item if type(item) is str else key(item)
        if found is None:
            return None
        items.append((name, found))
    return "dict", tuple(items)


def value(found: Hashable) -> Any:
    """The JSON value whose key is ``found``: equal to the original, same types, same order."""
    if type(found) is str:
        return found
    tag, inner = found  # type: ignore[misc]
    if tag == "dict":
        return {name: value(item) for name, item in inner}
    if tag == "list":
        return [value(item) for item in inner]
    if tag == "float":
        return float(inner)
    return inner
