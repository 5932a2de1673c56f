"""``ctxlab probe``: probe questions after each kind of compaction, scored (§12.5)."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from ..beyond.probes import KINDS, LABELS
from ..beyond.summaries import VARIANTS, compare_summaries
from ..scenarios import ScenarioError, load
from ..tokens import CAVEAT
from .common import UserError, positive_int, print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("probe", help="ask probe questions after each kind of compaction "
                                          "and score the answers (§12.5)")
    parser.add_argument("--scenario", default="constraint", help="scenario (default constraint)")
    parser.add_argument("--after", default=None,
                        help="step id to stop after (default: the step before the last)")
    parser.add_argument("--window", type=positive_int, default=None,
                        help="window the client-side variants compact for (default: the "
                             "history plus 15,000 tokens)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        plan = load(args.scenario)
    except ScenarioError as error:
        raise UserError(str(error)) from None
    if args.after is not None and args.after not in {s.id for s in plan.steps}:
        raise UserError(f"{args.scenario} has no step {args.after!r}; its steps: "
                        + ", ".join(s.id for s in plan.steps))
    with Console(stderr=True).status("compacting and probing …"):
        report = compare_summaries(args.scenario, after=args.after, window=args.window,
                                   seed=args.seed)
    if args.json:
        print_json(report)
        return 0
    table = Table(title=f"Probes after compaction: {report['scenario']}, after "
                        f"'{report['after']}' ({report['history_tokens']:,}-token history, "
                        f"{len(report['probes'])} probes)", caption=CAVEAT)
    for column in ("variant", "context tokens", "score", *(LABELS[k] for k in KINDS)):
        table.add_column(column, justify="right")

    def cell(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    for row in report["variants"]:
        if row["context_tokens"] is None:
            table.add_row(row["variant"], "–", "–", "–", "–", "–", "–")
            continue
        table.add_row(row["variant"], f"{row['context_tokens']:,}", cell(row["score"]),
                      *(cell(row["by_kind"][k]) for k in KINDS))
    console = Console()
    console.print(table)
    for row in report["variants"]:
        if row["note"]:
            console.print(f"{row['variant']}: {row['note']}", highlight=False)
    console.print(f"variants: {', '.join(VARIANTS)}; `--json` shows every question, the "
                    "expected items and each answer.")
    return 0
