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
    table = Table(title="Models (prices in $ per million tokens)")
    for column in ("model", "window", "max output", "cache min", "input", "output",
                   "5m write", "1h write", "cache read", "note"):
        table.add_column(column, justify="left" if column in ("model", "note") else "right")
    for m in models.MODELS:
        p = m.prices
        table.add_row(m.id, f"{m.context_window:,}", f"{m.max_output:,}",
                      f"{m.cache_minimum:,}", f"{p.input:g}", f"{p.output:g}",
                      f"{p.write_5m:g}", f"{p.write_1h:g}", f"{p.cache_read:g}", m.note)
    Console().print(table)
    return 0
