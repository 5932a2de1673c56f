"""``ctxlab probe``: probe questions after each kind of compaction, scored (§12.5)."""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
from rich.table import Table

from ..beyond.probes import KINDS, LABELS
from ..beyond.summaries import VARIANTS, compare_summaries
from ..scenarios import ScenarioError, load
from ..tokens import CAVEAT
from ..view import compact_table, figures, fitted
from .common import UserError, add_rot_option, positive_int, print_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("probe")
    parser.add_argument("--scenario", default="constraint", help="scenario (default constraint)")
    parser.add_argument("--after", default=None,
                        help="step id to stop after (default: the step before the last)")
    parser.add_argument("--window", type=positive_int, default=None,
                        help="window the client-side variants compact for (default: the "
                             "history plus 15,000 tokens)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_rot_option(parser)
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
    console = Console()
    console.print(fitted(console, [lambda: probe_table(report), lambda: probe_table(report, True)]))
    for row in report["variants"]:
        if row["note"]:
            console.print(f"{row['variant']}: {row['note']}", highlight=False)
    console.print(f"variants: {', '.join(VARIANTS)}; `--json` shows every question, the "
                    "expected items and each answer.")
    return 0


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def probe_table(report: dict[str, Any], compact: bool = False) -> Table:
    """One row per compaction variant: its context size, its score, its score by probe kind."""
    title = (f"Probes after compaction: {report['scenario']}, after '{report['after']}' "
             f"({report['history_tokens']:,}-token history, {len(report['probes'])} probes)")
    table = compact_table(title=title, caption=CAVEAT) if compact else Table(title=title,
                                                                               caption=CAVEAT)
    table.add_column("variant", no_wrap=True)
    labels = [LABELS[k].replace(" ", "\n") if compact else LABELS[k] for k in KINDS]
    figures(table, "context\ntokens", "score", *labels)
    for row in report["variants"]:
        if row["context_tokens"] is None:
            table.add_row(row["variant"], *["–"] * (2 + len(KINDS)))
            continue
        table.add_row(row["variant"], f"{row['context_tokens']:,}", _cell(row["score"]),
                      *(_cell(row["by_kind"][k]) for k in KINDS))
    return table
