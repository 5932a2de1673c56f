"""``ctxlab cachecost``: compact now or after N more turns, in dollars (§6.5–§6.7)."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from .. import models
from ..beyond.cost_report import KINDS, cache_cost_report
from ..report.compare import LARGE_WINDOW_MODEL
from ..scenarios import ScenarioError, load
from ..tokens import CAVEAT
from ..view import figures
from .common import UserError, add_rot_option, positive_int, print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("cachecost")
    parser.add_argument("--scenario", default="long-task", help="scenario (default long-task)")
    parser.add_argument("--turns", type=positive_int, default=8, help="turns run before deciding")
    parser.add_argument("--model", default=LARGE_WINDOW_MODEL,
                        help=f"model and price table (default {LARGE_WINDOW_MODEL})")
    parser.add_argument("--kind", choices=KINDS, default="clear",
                        help="compaction: clear old results (no model call) or a summary")
    parser.add_argument("--pause-at", type=positive_int, default=3,
                        help="turn the pause comes before")
    parser.add_argument("--pause-min", type=float, default=61.0, help="pause length, minutes")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_rot_option(parser)
    parser.set_defaults(run=run)


def _cell(usd: float | None, best: bool) -> str:
    return ("–" if usd is None else f"{usd:.3f}") + (" ★" if best else "")


def run(args: argparse.Namespace) -> int:
    try:
        load(args.scenario)
        models.get(args.model)
    except (ScenarioError, KeyError) as error:
        raise UserError(str(error).strip("'\"")) from None
    if args.turns < 2:
        raise UserError("--turns must be at least 2 (the growth per turn is measured)")
    with Console(stderr=True).status("running and pricing …"):
        report = cache_cost_report(args.scenario, turns=args.turns, model=args.model,
                                   kind=args.kind, pause_at=args.pause_at,
                                   pause_s=args.pause_min * 60)
    if args.json:
        print_json(report)
        return 0
    console = Console()
    sit, hit = report["situation"], report["miss_vs_hit"]
    console.print(f"A {hit['prefix_tokens']:,}-token prefix on {args.model}: read from cache "
                  f"${hit['read_usd']:.3f}, written again ${hit['rewrite_usd']:.3f} "
                  f"({hit['rewrite_over_read']:.1f}x).")
    console.print(f"Now: {sit['history_tokens']:,}-token history (+{sit['growth_per_turn']:,} "
                  f"per turn), {sit['kept_tokens']:,} after compacting ({args.kind}), "
                  f"{sit['horizon']} turns to go.")
    table = Table(title="Bill of the next turns if the context is compacted before turn N",
                  caption=CAVEAT)
    warm, paused = report["plans"]["warm"], report["plans"]["paused"]
    figures(table, "N", "cache warm, $",
            f"{args.pause_min:g}-min pause\nbefore turn {args.pause_at}, $")
    for n, (a, b) in enumerate(zip(warm["totals_usd"], paused["totals_usd"], strict=True)):
        table.add_row(str(n), _cell(a, warm["best_turn"] == n), _cell(b, paused["best_turn"] == n))
    table.add_row("never", _cell(warm["never_usd"], warm["best_turn"] is None),
                  _cell(paused["never_usd"], paused["best_turn"] is None))
    console.print(table)
    check = report["check"]
    verdict = "matches" if check["model_matches_simulator"] else "[red]does not match[/]"
    extra = ", ".join(f"{k}: {v:+.3f} $" for k, v in check["extra_cost_of_clearing_usd"].items())
    console.print(f"Extra cost of clearing the next request, by idle time: {extra}. "
                  f"The cost model {verdict} the simulator's bill.")
    return 0
