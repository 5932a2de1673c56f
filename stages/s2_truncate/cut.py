# Generated from solutions/s2_truncate/cut.py — your exercise: edit it.
# `ctxlab workbook reset 2` regenerates it (your version is backed up first).
"""Exercise 2.3 — where to cut: the fix for naive truncation (guide §14 stage 2, §9.2).

Keep the task (the first round) and as many of the newest rounds as fit the budget; cut only
where a round starts, so no ``tool_result`` ever loses its ``tool_use``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .rounds import api_rounds

Messages = list[dict[str, Any]]


def find_safe_cut(messages: Messages, budget: int, estimate: Callable[[Messages], int]) -> int:
    """The smallest round start ``k`` after the first round such that the first round plus
    ``messages[k:]`` fits in ``budget`` by ``estimate``; the start of the last round when
    nothing fits; ``len(messages)`` when there is only the first round. The messages between
    the first round and ``k`` are the ones to drop."""
    raise NotImplementedError("Exercise 2.3 — find_safe_cut(): see notebooks/02_truncate.ipynb")
