"""``ctxlab compare``: the total bill — every stage on the same task (guide §14 stage 5)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.console import Console

from ..report.compare import bill_markdown, built_stages, compare
from ..scenarios import ScenarioError, load
from ..telemetry import RunSummary
from ..view import summary_view
from ..workbook.router import use
from .common import UserError, add_layer_options, check_layer_options, print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("compare", help="run every stage on one task: the total bill")
    parser.add_argument("--scenario", default="long-task", help="scenario (default long-task)")
    parser.add_argument("--seed", type=int, default=0)
    add_layer_options(parser, what="compare")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print a list of run objects")
    output.add_argument("--markdown", action="store_true", help="print the README's table")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        load(args.scenario)
    except ScenarioError as error:
        raise UserError(str(error)) from None
    use(args.impl, None, args.chain)
    options = _options(dict(args.options))
    status = Console(stderr=True)
    if options:
        given = " ".join(f"--set {k}={json.dumps(v)}" for k, v in args.options)
        taken = ", ".join(str(s) for s in options)
        status.print(f"{given}: on stage {taken} (the other stages do not take it)",
                     highlight=False)
    with status.status("running …") as spinner:
        rows = compare(args.scenario, seed=args.seed, layer_options=options,
                       on_run=lambda label: spinner.update(f"running {label} …"))
    if args.json:
        print_json(rows)
        return 0
    if args.markdown:
        print(bill_markdown(rows), end="")
        return 0
    console = Console()
    console.print(summary_view(console, [RunSummary.from_dict(r) for r in rows],
                               title=f"The total bill: {args.scenario}"))
    return 0


def _options(options: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """``--set`` options for each stage whose ``make_layer`` takes them all (a variant of
    that stage runs in its place); one clear line when none does."""
    if not options:
        return {}
    taken, why = {}, []
    for stage in built_stages():
        try:
            check_layer_options(stage, options)
        except UserError as error:
            why.append(str(error))
            continue
        taken[stage] = options
    if not taken:
        raise UserError(f"no stage takes {', '.join(sorted(options))}: {why[-1]}")
    return taken
