"""``ctxlab compare``: the total bill — every stage on the same task (guide §14 stage 5)."""

from __future__ import annotations

import argparse

from rich.console import Console

from .. import use
from ..report.compare import bill_markdown, compare, versus_oracle
from ..scenarios import ScenarioError, load
from ..telemetry import RunSummary
from ..view import summary_view
from .common import UserError, add_layer_options, build_custom, print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("compare", help="run every stage on one task: the total bill")
    parser.add_argument("--scenario", default="long-task", help="scenario (default long-task)")
    parser.add_argument("--seed", type=int, default=0)
    add_layer_options(parser, what="compare")
    parser.add_argument("--peers", action="store_true",
                        help="also the popular libraries' layers and the API's own, and the "
                             "oracle (needs pip install -e '.[peers]')")
    parser.add_argument("--oracle", action="store_true",
                        help="also the oracle: the lower bound from the scenario's plan")
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
    options = dict(args.options)
    if options and args.layer is None:
        raise UserError("--set on compare sets the options of --layer's factory; "
                        "add --layer MODULE:FACTORY")
    if args.layer is not None:
        build_custom(args.layer, options)
    if args.peers:
        from ..peers import INSTALL, missing

        if missing():
            raise UserError(f"--peers needs LangChain ({', '.join(missing())} missing): "
                            f"{INSTALL}")
    status = Console(stderr=True)
    with status.status("running …") as spinner:
        rows = compare(args.scenario, seed=args.seed,
                       on_run=lambda label: spinner.update(f"running {label} …"),
                       layer=args.layer, layer_options=options, peers=args.peers,
                       oracle=args.oracle)
    if args.json:
        print_json(rows)
        return 0
    if args.markdown:
        print(bill_markdown(rows), end="")
        return 0
    console = Console()
    console.print(summary_view(console, [RunSummary.from_dict(r) for r in rows],
                               title=f"The total bill: {args.scenario}"))
    ratio = versus_oracle(rows)
    if ratio is not None:
        console.print(f"stage 5 / oracle: {ratio:.2f}× the oracle's tokens (the oracle reads "
                      "the plan: a bound, not a method)", highlight=False)
    return 0
