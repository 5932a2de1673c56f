"""``ctxlab example ch8.3``: the chapter-8 worked example, reproduced (excerpt ch8.3)."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from ..report.ch8 import worked_example
from ..report.compare import built_stages
from ..tokens import CAVEAT
from ..view import figures
from .common import UserError, add_rot_option, print_json

EXCERPT = {"start": 180_000, "after_l3": 132_000, "after_l1": 132_000, "after_l2": 71_000}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("example")
    parser.add_argument("name", choices=["ch8.3"], help="which example")
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_rot_option(parser, default="off", why=": the excerpt's agent finds what it sees")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if 5 not in built_stages():
        raise UserError("the worked example uses the stage-5 layers, which are not built yet")
    table = worked_example(rot=args.rot == "on")
    if args.json:
        print_json(table)
        return 0
    view = Table(title=f"ch8.3 at {table['messages']} messages", caption=CAVEAT)
    view.add_column("step", no_wrap=True)
    figures(view, "tokens", "excerpt", "difference")
    for key, label in (("start", "start"), ("after_l3", "L3 offload"),
                       ("after_l1", "L1 snip"), ("after_l2", "L2 old results")):
        ours, theirs = table[key], EXCERPT[key]
        view.add_row(label, f"{ours:,}", f"{theirs:,}", f"{(ours - theirs) / theirs:+.1%}")
    console = Console()
    console.print(view)
    verdict = "runs" if table["l4_ran"] else "is not needed"
    console.print(f"L4 (summary) {verdict}: {table['after_l2']:,} vs threshold "
                  f"{table['threshold']:,}; snip cut {table['snipped_messages']} messages.")
    console.print(f"The history is the simulated agent's, with context rot {args.rot} (--rot) "
                  "and, as in the excerpt, no re-reads of a file in view.")
    return 0
