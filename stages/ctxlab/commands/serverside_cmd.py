"""``ctxlab serverside``: the long task managed by the client, by the API, or both (§6.6)."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from .. import models
from ..beyond.server_side import VARIANTS, compare_server_side
from ..scenarios import ScenarioError, load
from ..tokens import CAVEAT
from .common import UserError, print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("serverside", help="client-side vs server-side context management: "
                                               "one task, one bill (§6.6)")
    parser.add_argument("--scenario", default="long-task", help="scenario (default long-task)")
    parser.add_argument("--model", default=None,
                        help="model for every variant but compaction (default: the scenario's)")
    parser.add_argument("--only", default=None,
                        help="comma-separated variants: " + ",".join(v.key for v in VARIANTS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        load(args.scenario)
        if args.model is not None:
            models.get(args.model)
    except (ScenarioError, KeyError) as error:
        raise UserError(str(error).strip("'\"")) from None
    keys = tuple(args.only.split(",")) if args.only else None
    unknown = set(keys or ()) - {v.key for v in VARIANTS}
    if unknown:
        raise UserError(f"unknown variant(s) {', '.join(sorted(unknown))}; choose from "
                        + ", ".join(v.key for v in VARIANTS))
    with Console(stderr=True).status("running …") as spinner:
        report = compare_server_side(args.scenario, model=args.model, seed=args.seed,
                                     keys=keys,
                                     on_run=lambda label: spinner.update(f"running {label} …"))
    if args.json:
        print_json(report)
        return 0
    table = Table(title=f"Same task, same bill: {report['scenario']}", caption=CAVEAT)
    for column in ("", "done", "turns", "token-per-task", f"$ at {report['prices_of']}",
                   "$ own prices", "cache read", "peak request", "dup. calls"):
        table.add_column(column, justify="right")
    for r in report["runs"]:
        table.add_row(r["variant"], "yes" if r["success"] else "[red]no[/]", str(r["turns"]),
                      f"{r['tokens_per_task']:,}", f"{r['cost_usd_same_prices']:.3f}",
                      f"{r['cost_usd']:.3f}", f"{r['cache_read_share']:.0%}",
                      f"{r['peak_request_tokens']:,}", f"{r['duplicate_call_rate']:.0%}")
    console = Console()
    console.print(table)
    for r in report["runs"]:
        console.print(f"  {r['variant']}: {r['label']} — {r['model']}, "
                      f"{r['server_edits_applied']} server edit(s)", highlight=False)
    shown = [r["variant"] for r in report["runs"] if r["variant"] in "abcd"]
    abilities = Table(title="What each can and cannot do")
    abilities.add_column("capability")
    for key in shown:
        abilities.add_column(key)
    for row in report["capabilities"]:
        abilities.add_row(row["capability"], *(row[k] for k in shown))
    console.print(abilities)
    return 0
