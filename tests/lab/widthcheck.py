"""Reading a report at a terminal's width: nothing cut, no figure split (DESIGN §6)."""

from __future__ import annotations

import io
from collections.abc import Iterable

from rich.console import Console, RenderableType

WIDTHS = (80, 100, 160)


def recording(width: int) -> Console:
    """A console that records what it prints at ``width`` columns, as a terminal would."""
    return Console(record=True, width=width, file=io.StringIO(), color_system=None)


def rendered(width: int, *renderables: RenderableType) -> str:
    console = recording(width)
    for renderable in renderables:
        console.print(renderable)
    return console.export_text()


def assert_readable(text: str, width: int, figures: Iterable[str] = ()) -> None:
    """No cell cut short (``…``), no line past ``width``, every figure whole on one line."""
    lines = text.splitlines()
    assert "…" not in text, next(line for line in lines if "…" in line)
    assert max(map(len, lines)) <= width
    for figure in figures:
        assert any(figure in line for line in lines), f"{figure!r} is split or missing:\n{text}"
