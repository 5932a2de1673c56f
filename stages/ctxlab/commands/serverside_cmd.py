"""``ctxlab serverside``: the long task managed by the client, by the API, or both (§6.6)."""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from .. import models
from ..beyond.server_side import VARIANTS, compare_server_side
from ..scenarios import ScenarioError, load
from ..tokens import CAVEAT
from ..view import compact_table, figures, fitted
from .common import UserError, add_rot_option, print_json

ABILITIES = "What each can and cannot do"
ABILITY_MIN_WIDTH = 18  # narrower, the answers wrap a word a line: list them instead


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("serverside")
    parser.add_argument("--scenario", default="long-task", help="scenario (default long-task)")
    parser.add_argument("--model", default=None,
                        help="model for every variant but compaction (default: the scenario's)")
    parser.add_argument("--only", default=None,
                        help="comma-separated variants: " + ",".join(v.variant for v in VARIANTS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_rot_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        load(args.scenario)
        if args.model is not None:
            models.get(args.model)
    except (ScenarioError, KeyError) as error:
        raise UserError(str(error).strip("'\"")) from None
    keys = tuple(args.only.split(",")) if args.only else None
    unknown = set(keys or ()) - {v.variant for v in VARIANTS}
    if unknown:
        raise UserError(f"unknown variant(s) {', '.join(sorted(unknown))}; choose from "
                        + ", ".join(v.variant for v in VARIANTS))
    with Console(stderr=True).status("running …") as spinner:
        report = compare_server_side(args.scenario, model=args.model, seed=args.seed,
                                     keys=keys,
                                     on_run=lambda label: spinner.update(f"running {label} …"))
    if args.json:
        print_json(report)
        return 0
    console = Console()
    console.print(fitted(console, [lambda: bill_table(report), lambda: bill_table(report, True)]))
    for r in report["runs"]:
        console.print(f"  {r['variant']}: {r['label']} — {r['model']}, "
                      f"{r['server_edits_applied']} server edit(s)", highlight=False)
    shown = [r["variant"] for r in report["runs"] if r["variant"] in "abcd"]
    console.print(fitted(console, [lambda: abilities_table(report, shown),
                                   lambda: abilities_lines(report, shown)]))
    return 0


def bill_table(report: dict[str, Any], compact: bool = False) -> Table:
    """One row per variant: done, turns, the bill at the same prices and at its own."""
    same = f"$ at {report['prices_of']}"
    title = f"Same task, same bill: {report['scenario']}"
    if compact:
        table = compact_table(title=title, caption=f"$ same = {same} prices; $ own = at the "
                              f"variant's own model's prices. {CAVEAT}")
        headers = ("done", "turns", "token-\nper-task", "$ same", "$ own", "cache\nread",
                   "peak\nrequest", "dup.\ncalls")
    else:
        table = Table(title=title, caption=CAVEAT)
        headers = ("done", "turns", "token-per-task", same, "$ own prices", "cache read",
                   "peak request", "dup. calls")
    table.add_column("", no_wrap=True)
    figures(table, *headers)
    for r in report["runs"]:
        table.add_row(r["variant"], "yes" if r["success"] else "[red]no[/]", str(r["turns"]),
                      f"{r['tokens_per_task']:,}", f"{r['cost_usd_same_prices']:.3f}",
                      f"{r['cost_usd']:.3f}", f"{r['cache_read_share']:.0%}",
                      f"{r['peak_request_tokens']:,}", f"{r['duplicate_call_rate']:.0%}")
    return table


def abilities_table(report: dict[str, Any], shown: list[str]) -> Table:
    """Capabilities down, variants across (wide terminals)."""
    table = Table(title=ABILITIES)
    table.add_column("capability", min_width=ABILITY_MIN_WIDTH)
    for key in shown:
        table.add_column(key, min_width=ABILITY_MIN_WIDTH)
    for row in report["capabilities"]:
        table.add_row(row["capability"], *(row[k] for k in shown))
    return table


def abilities_lines(report: dict[str, Any], shown: list[str]) -> Group:
    """The same answers as a list: each capability, then one line per variant."""
    lines: list[Text] = [Text(ABILITIES, style="bold")]
    for row in report["capabilities"]:
        lines.append(Text(row["capability"], style="bold"))
        lines += [Text(f"  {key}: {row[key]}") for key in shown]
    return Group(*lines)
