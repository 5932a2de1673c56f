"""``ctxlab accept``: prove every layer of the pipeline fires (guide §12.8)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ..report.accept import accept
from ..report.compare import built_stages
from ..view import figures
from .common import UserError, print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("accept", help="force each layer and check it fires (§12.8)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if 5 not in built_stages():
        raise UserError("acceptance checks the stage-5 pipeline, which is not built yet")
    with Console(stderr=True).status("forcing each layer …"), \
            tempfile.TemporaryDirectory() as tmp:
        report = accept(Path(tmp))
    if args.json:
        print_json(report)
        return 0 if report["passed"] else 1
    console = Console()
    console.print(acceptance_table(report))
    console.print("[green]passed[/]" if report["passed"] else "[red]failed: a layer is dead[/]")
    return 0 if report["passed"] else 1


def acceptance_table(report: dict[str, Any]) -> Table:
    """One row per layer: the scenario that forces it, how often it fired, what it freed."""
    table = Table(title="Acceptance: every layer must fire (§12.8)")
    table.add_column("layer", no_wrap=True)
    table.add_column("forced by")
    figures(table, "triggers", "freed\ntokens")
    table.add_column("verdict", no_wrap=True)
    for row in report["layers"]:
        ok = row["triggers"] > 0 and row["freed_tokens"] > 0
        table.add_row(row["layer"], f"{row['scenario']}: {row['why']}", str(row["triggers"]),
                      f"{row['freed_tokens']:,}", "[green]fires[/]" if ok else "[red]DEAD[/]")
    return table
