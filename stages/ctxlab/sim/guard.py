"""Bodies that parse as JSON but that no later step could handle (API notes §2.2).

JSON allows an escaped lone surrogate (``"\\ud800"``), which is not a character: no text can be
encoded or counted with it; the same code point sent as raw bytes (ED A0 80) is read as one
too. Deeply nested values (a tool input or schema hundreds of levels deep) would exhaust the
stack of every recursive step after parsing. Both get a 400 here, before anything else reads
the body; the API's own texts for them are unknown (ours).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..tokens import encodable
from . import wording
from .errors import invalid

MAX_DEPTH = 128  # a common JSON parser default (serde_json); the API's figure is unknown
_SURROGATES = (re.compile(rb"\\u[dD][89a-fA-F]"), re.compile(rb"\xed[\xa0-\xbf]"))
"""A surrogate escaped (``\\ud800``) or as raw bytes (ED A0 80: not UTF-8, but Python's JSON
parser reads bytes with ``surrogatepass``). Two patterns, each with a literal start the regular
expression engine scans for quickly: one with both is tried at every byte of the body."""


@dataclass(frozen=True)
class ParsedBody:
    """A request body parsed before the simulator's lock is taken (by the server), with the
    one thing ``check`` needs of its bytes: whether they hold a surrogate escape."""

    payload: dict[str, Any]
    escapes: bool

    @classmethod
    def of(cls, body: bytes) -> ParsedBody | None:
        """The parsed body, or None when it is not a JSON object (the engine says why)."""
        try:
            parsed = json.loads(body) if body else None
        except (ValueError, RecursionError):
            return None
        return cls(parsed, has_escapes(body)) if isinstance(parsed, dict) else None


def has_escapes(body: bytes) -> bool:
    """Whether the raw body holds a surrogate anywhere, escaped or raw (only then are strings
    checked)."""
    return any(pattern.search(body) is not None for pattern in _SURROGATES)


def check(payload: Any, strings: bool) -> None:
    """Raise a 400 for a lone surrogate in any string (looked for only when ``strings``: the
    raw body escaped one) or nesting deeper than ``MAX_DEPTH``."""
    if not strings:  # only the depth can be wrong, wherever it is: one level at a time
        _check_depth(payload)
        return
    pending: list[tuple[Any, str, int]] = [(payload, "", 1)]
    while pending:
        value, path, depth = pending.pop()
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
        else:
            if isinstance(value, str) and not encodable(value):
                raise invalid(wording.LONE_SURROGATE.format(path=path.lstrip(".") or "body"))
            continue
        if depth > MAX_DEPTH:
            raise invalid(wording.TOO_DEEP.format(limit=MAX_DEPTH))
        for key, item in items:
            if isinstance(key, str) and not encodable(key):
                raise invalid(wording.LONE_SURROGATE.format(path=path.lstrip(".") or "body"))
            pending.append((item, f"{path}.{key}", depth + 1))


def _check_depth(payload: Any) -> None:
    """Raise ``TOO_DEEP`` when a dict or list sits deeper than ``MAX_DEPTH`` (the body is 1)."""
    level = [payload] if isinstance(payload, dict | list) else []
    depth = 1
    while level:
        if depth > MAX_DEPTH:
            raise invalid(wording.TOO_DEEP.format(limit=MAX_DEPTH))
        inner = []
        for value in level:
            for item in value.values() if isinstance(value, dict) else value:
                if isinstance(item, dict | list):
                    inner.append(item)
        level = inner
        depth += 1
