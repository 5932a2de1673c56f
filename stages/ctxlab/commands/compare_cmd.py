"""``ctxlab compare``: the total bill — every stage on the same task (guide §14 stage 5)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.console import Console

from .. import use
from ..peers import INSTALL
from ..report.compare import bill_markdown, built_stages, compare, peer_rows, versus_oracle
from ..rows import LARGE_WINDOW_MODEL, ORACLE
from ..scenarios import ScenarioError, load
from ..telemetry import RunSummary
from ..view import summary_view
from .common import (
    UserError,
    add_layer_options,
    add_rot_option,
    build_custom,
    check_layer_options,
    print_json,
)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("compare")
    parser.add_argument("--scenario", default="long-task", help="scenario (default long-task)")
    parser.add_argument("--seed", type=int, default=0)
    add_layer_options(parser, what="compare")
    parser.add_argument("--peers", action="store_true",
                        help="also the peers: observation masking, the API's own clearing "
                             "and compaction, LangChain's layers (with pip install -e "
                             "'.[peers]'), and the oracle")
    parser.add_argument("--oracle", action="store_true",
                        help="also the oracle: the lower bound from the scenario's plan")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print a list of run objects")
    output.add_argument("--markdown", action="store_true", help="print the README's table")
    add_rot_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        load(args.scenario)
    except ScenarioError as error:
        raise UserError(str(error)) from None
    use(args.impl, None, args.chain)
    options = dict(args.options)
    status = Console(stderr=True)
    stage_options: dict[int, dict[str, Any]] = {}
    if args.layer is not None:  # --set goes to --layer's factory
        build_custom(args.layer, options)
    elif options:
        stage_options = _stage_options(options)
        given = " ".join(f"--set {k}={json.dumps(v)}" for k, v in args.options)
        taken = ", ".join(str(s) for s in stage_options)
        status.print(f"{given}: on stage {taken} (the other stages do not take it)",
                     highlight=False)
    if args.peers and peer_rows()[1]:
        status.print(f"LangChain's rows left out (not installed): {INSTALL}", markup=False,
                     highlight=False, soft_wrap=True)
    with status.status("running …") as spinner:
        rows = compare(args.scenario, seed=args.seed,
                       on_run=lambda label: spinner.update(f"running {label} …"),
                       stage_options=stage_options, layer=args.layer,
                       layer_options=options if args.layer else None, peers=args.peers,
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
    console.print(f"keep all: no context layer, on {LARGE_WINDOW_MODEL} (1M window)",
                  highlight=False)
    ratio = versus_oracle(rows)
    if ratio is not None:
        console.print(f"stage 5 / oracle: {ratio:.2f}× the oracle's tokens (the oracle reads "
                      "the plan: a bound, not a method)", highlight=False)
    elif any(row["stage"] == ORACLE for row in rows) and any(row["stage"] == 5 for row in rows):
        console.print("no ratio to the oracle: with context rot on, a row finished with fewer "
                      "tokens than it, so here it is no bound (`--rot off` gives one)",
                      highlight=False)
    return 0


def _stage_options(options: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """``--set`` options for each stage whose ``make_layer`` takes them all (a variant of
    that stage runs in its place); one clear line when none does."""
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
