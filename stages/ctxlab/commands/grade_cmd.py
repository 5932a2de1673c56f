"""``ctxlab grade [N]``: grade your workbook stage by stage and say what to do next."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..workbook import grade
from ..workbook.layout import STAGES, repo_root, stage
from .common import UserError, print_json

STYLE = {grade.TODO: "yellow", grade.DONE: "green", grade.PITFALL: "cyan",
         grade.HOLDS: "green", grade.REGRESSION: "bold red", grade.BROKEN: "bold red"}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("grade", help="grade your workbook (all stages, or one)")
    parser.add_argument("stage", type=int, nargs="?", help="only this stage")
    parser.add_argument("--chain", choices=("reference", "mine"), default="reference",
                        help="other stages from the reference (default) or your workbook")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        stages = [stage(args.stage)] if args.stage else list(STAGES)
    except ValueError as error:
        raise UserError(str(error)) from None
    stages = [s for s in stages if (repo_root() / "tests" / f"s{s.number}").exists()]
    rows = []
    status = Console(stderr=True)
    for s in stages:
        with status.status(f"grading stage {s.number} ({s.package}) …"):
            rows += grade.classify(s, grade.run_tests(s, args.chain))
    if args.json:
        print_json([asdict(r) for r in rows])
        return 0
    table = Table(title="Workbook grade")
    for column in ("stage", "exercise / pitfall", "status", "detail"):
        table.add_column(column)
    for r in rows:
        table.add_row(str(r.stage), escape(r.item), f"[{STYLE[r.status]}]{r.status}[/]",
                      escape(r.detail))
    console = Console()
    console.print(table)
    todo = next((r for r in rows if r.status in (grade.REGRESSION, grade.BROKEN, grade.TODO)),
                None)
    if todo is None:
        console.print("Everything graded is done. Pitfall rows show what the next stage fixes "
                      "(`ctxlab ladder` shows every stage's cells).")
    else:
        number = todo.item.split()[1] if todo.item.startswith("exercise") else ""
        hint = f" — stuck? `ctxlab hint {number}`" if number else ""
        console.print(f"Next: {todo.item} ({todo.status.lower()}): {todo.detail}{hint}")
    return 0
