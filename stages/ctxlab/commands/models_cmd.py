"""``ctxlab models``: the model table the simulator uses (windows, limits, prices)."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from rich.console import Console
from rich.table import Table

from .. import models
from .common import print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("models", help="list the simulated models and their prices")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        print_json([asdict(m) for m in models.MODELS])
        return 0
    table = Table(title="Models (window and max output in tokens, prices in $ per MTok)",
                  caption=_caption(), caption_justify="left")
    for column in ("model", "window", "out", "cache min", "in/out", "5m/1h/read"):
        table.add_column(column, justify="left" if column == "model" else "right",
                         no_wrap=True)
    for m in models.MODELS:
        p = m.prices
        table.add_row(m.id + ("*" if m.note else ""), _k(m.context_window), _k(m.max_output),
                      f"{m.cache_minimum:,}", f"{p.input:g}/{p.output:g}",
                      f"{p.write_5m:g}/{p.write_1h:g}/{p.cache_read:g}")
    console = Console()
    console.print(table)
    for m in models.MODELS:
        if m.note:
            console.print(f"* {m.id}: {m.note}", highlight=False)
        if m.aliases:
            console.print(f"  {m.id} also answers to {', '.join(m.aliases)}", style="dim",
                          highlight=False)
    return 0


def _k(tokens: int) -> str:
    """``200000`` as ``200K``, ``1000000`` as ``1M``."""
    return f"{tokens // 1_000_000}M" if tokens % 1_000_000 == 0 else f"{tokens // 1_000}K"


def _caption() -> str:
    return ("* see the note below; UNVERIFIED marks a figure the API notes do not give, and "
            "says which figure is used")
