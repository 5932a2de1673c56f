"""``ctxlab compare``: the total bill — every stage on the same task (guide §14 stage 5)."""

from __future__ import annotations

import argparse

from rich.console import Console

from ..report.compare import bill_markdown, compare
from ..scenarios import ScenarioError, load
from ..telemetry import RunSummary
from ..view import summary_view
from .common import UserError, print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("compare", help="run every stage on one task: the total bill")
    parser.add_argument("--scenario", default="long-task", help="scenario (default long-task)")
    parser.add_argument("--seed", type=int, default=0)
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print a list of run objects")
    output.add_argument("--markdown", action="store_true", help="print the README's table")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        load(args.scenario)
    except ScenarioError as error:
        raise UserError(str(error)) from None
    status = Console(stderr=True)
    with status.status("running …") as spinner:
        rows = compare(args.scenario, seed=args.seed,
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
