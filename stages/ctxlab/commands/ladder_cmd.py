"""``ctxlab ladder``: every stage pitfall of the guide, judged cell by cell (DESIGN §2, §14).

Runs each rung on each of its cells — a stage, or a stage variant through ``--set`` options
— and prints the status (pitfall / holds / n/a / broken) with the figure that shows the
mechanism. ``--impl stages`` judges your workbook (the other stages from the reference unless
``--chain mine``); ``--stage N`` only stage N's cells; ``--markdown`` prints the README table.
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .. import use
from ..ladder import BROKEN, HOLDS, LADDER, NA, NOT_SHOWN, PITFALL, VARIANTS, markdown, report
from ..workbook.layout import STAGES
from .common import UserError, add_layer_options, add_rot_option, build_custom, print_json

STYLE = {PITFALL: "cyan", HOLDS: "green", NA: "dim", BROKEN: "bold red", NOT_SHOWN: "yellow"}


def register(sub: argparse._SubParsersAction) -> None:
    variants = "; ".join(f"{k}: " + " ".join(f"{o}={v}" for o, v in opts.items())
                         for k, opts in VARIANTS.items())
    parser = sub.add_parser(
        "ladder",
        description="Judge each of the guide's stage pitfalls on each stage and stage "
                    "variant: pitfall (the mechanism was observed), holds (its trigger "
                    "occurred and the weakness did not follow), n/a (the stage lacks the "
                    "mechanism), broken (it could not be judged) or not shown (a rung judged "
                    "over seeds whose paired test showed no difference).",
        epilog=f"Variant cells and their --set options: {variants}.")
    add_layer_options(parser, what="judge")
    parser.add_argument("--stage", type=int, choices=[s.number for s in STAGES],
                        help="only this stage's cells")
    parser.add_argument("--rung", action="append", choices=[r.id for r in LADDER],
                        metavar="ID", help="only this rung (repeatable)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print JSON")
    output.add_argument("--markdown", action="store_true", help="print the README's table")
    add_rot_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    use(args.impl, args.stage if args.impl == "stages" else None, args.chain)
    options = dict(args.options)
    if options and args.layer is None:
        raise UserError("--set on ladder sets the options of --layer's factory (a stage "
                        "variant's options are its cell's); add --layer MODULE:FACTORY")
    if args.layer is not None:
        build_custom(args.layer, options)
    rungs = [r for r in LADDER if not args.rung or r.id in args.rung]
    with Console(stderr=True).status("judging …") as spinner:
        data = report(rungs, stages=[args.stage] if args.stage else None,
                      on_cell=lambda rung, cell: spinner.update(f"judging {rung} on {cell} …"),
                      layer=args.layer, options=options)
    if args.json:
        print_json(data)
    elif args.markdown:
        print(markdown(data), end="")
    else:
        _table(data)
    return 1 if any(c["status"] == BROKEN for r in data["rungs"]
                    for c in r["stages"].values()) else 0


def _table(data: dict) -> None:
    """One block per rung: its title line, then cell · status · evidence (80 columns)."""
    console = Console()
    console.print("[bold]The pitfall ladder (guide §14)[/]: pitfall = the mechanism was "
                  "observed; holds = its trigger occurred and the weakness did not follow")
    for rung in data["rungs"]:
        console.print(f"\n[bold]{rung['id']}[/] ({rung['section']}, fixed in stage "
                      f"{rung['fixed_in']}): {escape(rung['why'])}", highlight=False)
        table = Table(box=None, show_header=False, padding=(0, 1))
        table.add_column("cell", no_wrap=True)
        table.add_column("status", no_wrap=True)
        table.add_column("evidence", overflow="fold")
        for cell, verdict in rung["stages"].items():
            status = verdict["status"]
            table.add_row(cell, f"[{STYLE[status]}]{status}[/]", escape(verdict["evidence"]))
        console.print(table)
