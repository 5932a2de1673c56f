"""``ctxlab models``: the model table the simulator uses (windows, limits, prices)."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from datetime import date

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from .. import models
from ..view import compact_table, figures, fitted
from .common import print_json

NOTE_MIN_WIDTH = 30


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("models")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


TITLE = "Models (prices in $ per million tokens)"
PRICES = ("input", "output", "5m\nwrite", "1h\nwrite", "cache\nread")


def _figures(m: models.ModelSpec) -> list[str]:
    p = m.prices
    return [f"{m.context_window:,}", f"{m.max_output:,}", f"{m.cache_minimum:,}",
            f"{p.input:g}", f"{p.output:g}", f"{p.write_5m:g}", f"{p.write_1h:g}",
            f"{p.cache_read:g}"]


def full_table() -> Table:
    """Every figure and the note of each model in one table."""
    table = Table(title=TITLE)
    table.add_column("model", no_wrap=True)
    figures(table, "window", "max output", "cache min", *PRICES)
    table.add_column("note", min_width=NOTE_MIN_WIDTH)
    for m in models.MODELS:
        table.add_row(m.id, *_figures(m), m.note)
    return table


def compact_view() -> Group:
    """Short headers, the notes numbered under the table."""
    table = compact_table(title=TITLE)
    table.add_column("model", no_wrap=True)
    figures(table, "window", "max\nout", "cache\nmin", "in", "out", "5m\nwrite", "1h\nwrite",
            "cache\nread", "")
    noted = [m for m in models.MODELS if m.note]
    for m in models.MODELS:
        mark = str(noted.index(m) + 1) if m in noted else ""
        table.add_row(m.id, *_figures(m), mark)
    notes = [Text(f"[{n}] {m.id}: {m.note}") for n, m in enumerate(noted, 1)]
    return Group(table, *notes)


def run(args: argparse.Namespace) -> int:
    if args.json:
        print_json([{k: v.isoformat() if isinstance(v, date) else v
                     for k, v in asdict(m).items()} for m in models.MODELS])
        return 0
    console = Console()
    console.print(fitted(console, [full_table, compact_view]))
    for m in models.MODELS:
        if m.aliases:
            console.print(f"{m.id} also answers to {', '.join(m.aliases)}", style="dim",
                          highlight=False)
    return 0

