"""``ctxlab accept``: prove every layer of the pipeline fires (guide §12.8).

``--impl stages`` checks your own stage 5; ``--set KEY=VALUE`` changes every drill's layer
options (a mis-wired layer must fail: ``--set keep_results=10000`` leaves microcompact nothing
to clear). A dead layer is named, with the kind of dead: *no chance* (its trigger was never
reached) or *wired wrong* (reached, and it freed nothing).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .. import use
from ..report.accept import FIRES, accept, accept_layer
from ..report.compare import built_stages
from ..view import figures
from .common import (
    UserError,
    add_layer_options,
    add_rot_option,
    build_custom,
    check_layer_options,
    print_json,
)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("accept")
    add_layer_options(parser, what="check")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_rot_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if 5 not in built_stages():
        raise UserError("acceptance checks the stage-5 pipeline, which is not built yet")
    use(args.impl, 5 if args.impl == "stages" else None, args.chain)
    options = dict(args.options)
    if args.layer is not None:
        build_custom(args.layer, options)
    else:
        check_layer_options(5, options)
    try:
        with Console(stderr=True).status("forcing each layer …"), \
                tempfile.TemporaryDirectory() as tmp:
            report = (accept_layer(args.layer, options=options) if args.layer is not None
                      else accept(Path(tmp), options=options))
    except NotImplementedError as error:
        raise UserError(f"{error} — your stage 5 is not finished yet (`ctxlab grade 5` shows "
                        "what is left)") from None
    if args.json:
        print_json(report)
        return 0 if report["passed"] else 1
    console = Console()
    console.print(acceptance_table(report))
    if report["passed"]:
        console.print("[green]passed[/]")
    elif not report["layers"]:
        console.print("[red]failed: the layer reported no mechanism firing (session.report)[/]")
    else:
        console.print(f"[red]failed: dead layer(s): {', '.join(report['dead'])}[/]")
    return 0 if report["passed"] else 1


def acceptance_table(report: dict[str, Any]) -> Table:
    """One row per layer: the scenario that forces it, how often it fired, what it freed."""
    table = Table(title="Acceptance: every layer must fire (§12.8)")
    table.add_column("layer", no_wrap=True)
    table.add_column("forced by")
    figures(table, "triggers", "freed\ntokens")
    table.add_column("verdict", no_wrap=True)
    for row in report["layers"]:
        style = "green" if row["verdict"] == FIRES else "red"
        table.add_row(row["layer"], escape(f"{row['scenario']}: {row['why']}"),
                      str(row["triggers"]), f"{row['freed_tokens']:,}",
                      f"[{style}]{row['verdict']}[/]")
    return table
