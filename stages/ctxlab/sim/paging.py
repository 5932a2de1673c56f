"""Cursor pages as the API's list endpoints serve them (``/v1/models``, Message Batches).

``limit`` (default 20, 1–1000), ``after_id`` (the page right after that object) and
``before_id`` (the page right before it); the answer carries ``has_more`` in the requested
direction and ``first_id``/``last_id`` to ask for the next page with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from . import wording
from .errors import invalid


def page(ids: list[str], query: str, render: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """One page of ``ids`` (in list order) for ``query``, each id rendered by ``render``."""
    params = {k: v[-1] for k, v in parse_qs(query).items()}
    raw_limit = params.get("limit", "20")
    if not raw_limit.isdigit():
        raise invalid(wording.WRONG_TYPE.format(path="limit", expected="a valid integer"))
    if not 1 <= int(raw_limit) <= 1000:
        template = wording.RANGE_MIN if int(raw_limit) < 1 else wording.RANGE_MAX
        raise invalid(template.format(path="limit", limit=1 if int(raw_limit) < 1 else 1000))
    start, end = 0, len(ids)
    if params.get("after_id") in ids:
        start = ids.index(params["after_id"]) + 1
    if params.get("before_id") in ids:
        end = ids.index(params["before_id"])
    limit = int(raw_limit)
    chosen = ids[start:end]
    backwards = "before_id" in params and "after_id" not in params
    shown = chosen[-limit:] if backwards else chosen[:limit]
    return {"data": [render(i) for i in shown], "has_more": len(shown) < len(chosen),
            "first_id": shown[0] if shown else None, "last_id": shown[-1] if shown else None}
