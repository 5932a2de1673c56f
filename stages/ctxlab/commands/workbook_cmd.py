"""``ctxlab workbook reset N | solve N | check``: regenerate, solve or verify the stubs."""

from __future__ import annotations

import argparse

from rich.console import Console

from ..workbook import manage
from ..workbook.layout import stage
from .common import UserError


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("workbook", help="reset, solve or check the workbook stages")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    reset = actions.add_parser("reset", help="regenerate a stage's stubs (backs up your files)")
    reset.add_argument("stage", type=int)
    solve = actions.add_parser("solve", help="copy the reference solution into a stage "
                                             "(backs up your files)")
    solve.add_argument("stage", type=int)
    actions.add_parser("check", help="fail if stages/ differs from a fresh generation (CI)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    console = Console()
    if args.action == "check":
        problems = manage.check()
        for problem in problems:
            console.print(problem, highlight=False, markup=False)
        console.print(f"{len(problems)} stub file(s) out of sync" if problems
                      else "stubs are in sync with solutions/")
        return 1 if problems else 0
    try:
        target = stage(args.stage)
    except ValueError as error:
        raise UserError(str(error)) from None
    saved = manage.reset(target) if args.action == "reset" else manage.solve(target)
    what = "regenerated the stubs of" if args.action == "reset" else "copied the reference into"
    console.print(f"{what} stages/{target.package}")
    if saved is not None:
        console.print(f"your previous files are in {saved}")
    return 0
