"""A history at a glance: one row per message, its blocks in a few words, its API round.

Used to show where a cut falls (guide §9.2): which ``tool_use`` a ``tool_result`` answers, and
which messages travel together as one round.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rich.markup import escape
from rich.table import Table


def _short_id(block_id: str) -> str:
    return "…" + block_id[-6:]


def describe_block(block: dict[str, Any] | str, width: int = 48) -> str:
    """One block in a few words: its type, and what identifies or sizes it."""
    if isinstance(block, str):
        block = {"type": "text", "text": block}
    kind = block.get("type", "?")
    if kind == "text":
        text = " ".join(block.get("text", "").split())
        return f"text “{text[:width]}{'…' if len(text) > width else ''}”"
    if kind == "tool_use":
        args = json.dumps(block.get("input", {}), ensure_ascii=False)
        return f"tool_use {_short_id(block.get('id', ''))} {block.get('name')} {args[:width]}"
    if kind == "tool_result":
        content = block.get("content", "")
        size = len(content) if isinstance(content, str) else len(json.dumps(content))
        return f"tool_result → {_short_id(block.get('tool_use_id', ''))} ({size:,} chars)"
    if kind == "thinking":
        return f"thinking ({len(block.get('thinking', '')):,} chars)"
    return kind


def round_of(rounds: Sequence[tuple[int, int]], index: int) -> int | None:
    """The number of the round holding message ``index`` (None when no round does)."""
    return next((n for n, (start, end) in enumerate(rounds) if start <= index < end), None)


def outline(messages: list[dict[str, Any]], *, rounds: Sequence[tuple[int, int]] | None = None,
            title: str | None = None, width: int = 48) -> Table:
    """A rich table of ``messages``; with ``rounds`` (from ``api_rounds``), a round column."""
    table = Table(title=title)
    table.add_column("#", justify="right")
    table.add_column("role")
    if rounds is not None:
        table.add_column("round", justify="right")
    table.add_column("blocks", overflow="fold")
    for i, message in enumerate(messages):
        content = message["content"]
        blocks = [content] if isinstance(content, str) else content
        cells = [str(i), message["role"]]
        if rounds is not None:
            n = round_of(rounds, i)
            starts = any(start == i for start, _ in rounds)
            cells.append("" if n is None else f"[bold]{n}[/]" if starts else str(n))
        cells.append(escape("; ".join(describe_block(b, width) for b in blocks)))
        table.add_row(*cells, end_section=rounds is not None and any(
            end == i + 1 for _, end in rounds))
    return table
