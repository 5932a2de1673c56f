"""``ctxlab rot``: the papers' needle experiment on the simulated model — two kinds of fact,
by length and position — beside the published tables and the fits' per-cell errors (guide §4;
DESIGN §4 "Retrieval"; ``docs/rot.md``)."""

from __future__ import annotations

import argparse
import os
import tempfile
from dataclasses import asdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .. import models, needle
from ..recall import family, published, table
from .common import UserError, positive_int, print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("rot",
                            description="Put a literal and a latent fact at five positions in "
                                        "requests of 1K to 128K tokens and count how often the "
                                        "simulated model finds each, beside the published "
                                        "tables its curves are fitted to.")
    parser.add_argument("--model", default=models.DEFAULT_MODEL,
                        help=f"model id (default {models.DEFAULT_MODEL}, the scenarios' default)")
    parser.add_argument("--runs", type=positive_int, default=needle.RUNS, metavar="N",
                        help=f"seeds per cell (default {needle.RUNS}: a 95 %% confidence "
                             f"half-width of at most {needle.HALF_WIDTH})")
    parser.add_argument("--plot", type=Path, metavar="FILE",
                        help="also draw the curves beside the published points (PNG, SVG, PDF)")
    parser.add_argument("--json", action="store_true", help="print the cells as JSON")
    parser.set_defaults(run=run)


def _save(fig: object, path: Path) -> None:
    """Write the figure atomically, never through a link."""
    if path.is_symlink():
        raise UserError(f"{path} is a symbolic link; pass a plain file name")
    if not path.parent.is_dir():
        raise UserError(f"{path.parent} is not a folder")
    handle, temp = tempfile.mkstemp(dir=path.parent, suffix=path.suffix)
    os.close(handle)
    try:
        fig.savefig(temp)  # type: ignore[attr-defined]
        os.replace(temp, path)
    except ValueError as error:  # an unknown image format
        os.unlink(temp)
        raise UserError(f"--plot {path}: {error}") from None


def run(args: argparse.Namespace) -> int:
    if models.lookup(args.model) is None:
        raise UserError(f"unknown model {args.model!r}; see `ctxlab models`")
    model = models.get(args.model).id
    console = Console(stderr=args.json)
    with console.status(f"needle experiment on {model}: {args.runs} seeds per cell"):
        cells = needle.experiment(model, runs=args.runs)
    recall = table(model)
    fits = {kind: {"source": recall.curve(kind).source, "cells": recall.curve(kind).errors()}
            for kind in needle.NEEDLES}
    if args.plot is not None:
        from ..plots.rot import rot_figure

        _save(rot_figure(model, cells, published()), args.plot)
    if args.json:
        print_json({"model": model, "family": family(model),
                    "cells": [asdict(c) for c in cells], "published": published(),
                    "fits": fits})
        return 0
    for kind in needle.NEEDLES:
        rows = [c for c in cells if c.kind == kind]
        table_ = Table(title=f"{model}, {kind} fact: share of {args.runs} runs that found it",
                       caption="rows: tokens in the request (* beyond the table: "
                               "extrapolated); columns: relative position")
        table_.add_column("tokens", justify="right")
        for position in needle.POSITIONS:
            table_.add_column(f"{position:.2f}", justify="right")
        table_.add_column("mean", justify="right")
        table_.add_column("table", justify="right")
        published_ = {e["tokens"]: e["table"] for e in fits[kind]["cells"]}
        for tokens in sorted({c.tokens for c in rows}):
            row = [c for c in rows if c.tokens == tokens]
            mean = sum(c.accuracy for c in row) / len(row)
            mark = "*" if row[0].extrapolated else ""
            table_.add_row(f"{tokens // 1024}K{mark}", *(f"{c.accuracy:.2f}" for c in row),
                           f"{mean:.2f}", f"{published_[tokens]:.2f}"
                           if tokens in published_ else "—")
        console.print(table_)
    if args.plot is not None:
        console.print(f"plot written to {args.plot}")
    return 0
