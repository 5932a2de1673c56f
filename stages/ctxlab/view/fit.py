"""Tables that read at 80 columns: the layout is chosen by the console's width (DESIGN §6).

A figure is never cut (no ``1,2…``, no ``$0.…``) and never split over two lines: every figure
column is ``no_wrap``. A report offers a full layout and a compact one (fewer, shorter
columns; long text moved to lines of its own under the table) and :func:`fitted` prints the
first that fits the console: drawn off screen at its width, with no cell cut short.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

from rich import box
from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.table import Table

Layout = Callable[[], RenderableType]
CUT = "…"  # what rich puts where a cell was too narrow


def compact_table(*, title: str | None = None, caption: str | None = None) -> Table:
    """A table without vertical rules and with one space between columns: two characters per
    column fewer than rich's default box, which is what lets nine figures share 80 columns."""
    return Table(title=title, caption=caption, caption_justify="left", box=box.SIMPLE_HEAD,
                 padding=(0, 1), collapse_padding=True, show_edge=False, pad_edge=False)


def figures(table: Table, *headers: str) -> None:
    """Right-aligned columns whose cells are never wrapped (a figure stays whole)."""
    for header in headers:
        table.add_column(header, justify="right", no_wrap=True)


def fits(console: Console, renderable: RenderableType) -> bool:
    """Whether ``renderable`` draws within the console's width with nothing lost.

    A table must have room for every column at its least width (a column squeezed below its
    ``min_width``, or below its longest word, loses its text without a trace). Then the
    renderable is drawn once, off screen, at that width and uncropped: rich's own measure
    ignores ``no_wrap``, and only the drawing says whether a figure would end in ``…`` or a
    line would run past the right edge (where a terminal crops it).
    """
    if least_width(console, renderable) > console.width:
        return False
    probe = Console(width=console.width, file=io.StringIO(), record=True, color_system=None)
    probe.print(renderable, crop=False)
    text = probe.export_text()
    return CUT not in text and all(cell_len(line) <= console.width
                                   for line in text.splitlines())


def least_width(console: Console, renderable: RenderableType) -> int:
    """The narrowest the tables of ``renderable`` (itself, or in a group) can be drawn."""
    if isinstance(renderable, Table):
        return renderable.__rich_measure__(console, console.options).minimum
    if isinstance(renderable, Group):
        return max((least_width(console, r) for r in renderable.renderables), default=0)
    return 0


def fitted(console: Console, layouts: Sequence[Layout]) -> RenderableType:
    """The first layout that fits the console; the last one (the most compact) otherwise."""
    for layout in layouts[:-1]:
        renderable = layout()
        if fits(console, renderable):
            return renderable
    return layouts[-1]()
