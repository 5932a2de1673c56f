# Generated from solutions/s2_truncate/rounds.py — your exercise: edit it.
# `ctxlab workbook reset 2` regenerates it (your version is backed up first).
"""Exercise 2.2 — API rounds: the units a history may be cut between (guide §9.2).

A round starts with an assistant message and runs until the next assistant message that
follows a user message: the assistant's blocks (thinking, text, every parallel ``tool_use``)
and the user message that answers them travel together. Consecutive assistant messages (one
response logged in pieces) belong to one round. The first user message — the task — is a
round of its own.
"""

from __future__ import annotations

from typing import Any


def api_rounds(messages: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Split ``messages`` into rounds, as ``(start, end)`` index pairs with ``end`` exclusive.

    ``api_rounds([u, a, u, a, a, u])`` is ``[(0, 1), (1, 3), (3, 6)]``.
    """
    raise NotImplementedError("Exercise 2.2 — api_rounds(): see notebooks/02_truncate.ipynb")
