"""``ctxlab rot``: the papers' position × occupancy needle experiment on the simulated model,
beside the published points (guide §4; DESIGN §4 "Retrieval")."""

from __future__ import annotations

import argparse
import os
import tempfile
from dataclasses import asdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .. import models, needle
from ..recall import POINTS, family
from .common import UserError, positive_int, print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("rot", help="the needle experiment: found by position and fill (§4)",
                            description="Put one fact at ten positions in requests filling 25, "
                                        "50, 75 and 95 %% of the window and count how often the "
                                        "simulated model finds it, beside published points.")
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
    with console.status(f"needle experiment on {model}: 40 cells × {args.runs} seeds"):
        cells = needle.experiment(model, runs=args.runs)
    if args.plot is not None:
        from ..plots.rot import rot_figure

        _save(rot_figure(model, cells, POINTS), args.plot)
    if args.json:
        print_json({"model": model, "family": family(model),
                    "cells": [asdict(c) for c in cells], "published": list(POINTS)})
        return 0
    table = Table(title=f"{model}: share of {args.runs} runs that found the fact",
                  caption="rows: occupancy of the window; columns: relative position")
    table.add_column("fill", justify="right")
    for position in needle.POSITIONS:
        table.add_column(f"{position:.2f}", justify="right")
    for occupancy in needle.OCCUPANCIES:
        row = [c for c in cells if c.occupancy == occupancy]
        table.add_row(f"{occupancy:.0%}", *(f"{c.accuracy:.2f}" for c in row))
    console.print(table)
    if args.plot is not None:
        console.print(f"plot written to {args.plot}")
    return 0
