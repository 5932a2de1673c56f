"""``ctxlab workbook reset N | solve N | check | zh-sync | export DIR | classroom | checklist``:
regenerate, solve or verify the stubs and the Chinese notebooks; hand out a copy; print the
GitHub Classroom workflow; write the appendix B map (docs/checklist.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from ..workbook import checklist_page, manage, points, twins
from ..workbook.layout import STAGES, Stage, handed_out, repo_root, stage
from .common import UserError


def stage_list(text: str) -> list[Stage]:
    """``"2,3"`` → stages 2 and 3 (an argparse type)."""
    try:
        return [stage(int(n)) for n in text.split(",") if n.strip()] or list(STAGES)
    except ValueError as error:
        raise argparse.ArgumentTypeError(
            str(error) if "stage" in str(error) else f"expected stage numbers like 2,3, "
                                                     f"got {text!r}") from None


def zh_line(report: twins.Synced) -> str:
    """One twin's sync, e.g. ``01_loop.ipynb: code cells 4 copied; translate markdown 5``."""
    parts = [f"code cell(s) {_cells(report.copied)} copied from the English"] if report.copied \
        else []
    if report.untranslated:
        parts.append(f"write in Chinese: markdown cell(s) {_cells(report.untranslated)}")
    if report.changed:
        parts.append(f"review (the English changed since): markdown {_cells(report.changed)}")
    if report.dropped:
        parts.append(f"{report.dropped} Chinese cell(s) without an English one removed")
    return f"notebooks/{twins.LANG}/{report.name}: " + ("; ".join(parts) or "in step")


def _cells(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("workbook")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    reset = actions.add_parser("reset", help="regenerate a stage's stubs (backs up your files)")
    reset.add_argument("stage", type=int)
    solve = actions.add_parser("solve", help="copy the reference solution into a stage "
                                             "(backs up your files)")
    solve.add_argument("stage", type=int)
    actions.add_parser("check", help="fail if stages/ differs from a fresh generation or a "
                                     "notebook has no complete Chinese twin (CI)")
    actions.add_parser("zh-sync", help="copy the English notebooks' code cells into "
                                       "notebooks/zh-CN/ and list the cells to translate")
    out = actions.add_parser("export", help="write the copy to hand out: stubs for the stages "
                                            "given, the reference for the others")
    out.add_argument("dir", type=Path, help="a new (or empty) folder")
    out.add_argument("--exercises", type=stage_list, required=True, metavar="N,M",
                     help="the stages handed out as exercises, e.g. 2,3")
    room = actions.add_parser("classroom", help="print the GitHub Classroom autograding "
                                                "workflow (points from solutions/grading.toml)")
    room.add_argument("--exercises", type=stage_list, default=None, metavar="N,M",
                      help="only these stages (default: the stages this checkout hands out)")
    items = actions.add_parser("checklist", help="write docs/checklist.md and its Chinese twin: "
                                                 "appendix B with the tests that check it")
    items.add_argument("--check", action="store_true",
                       help="write nothing; fail if the pages are out of date")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    console = Console()
    if args.action == "check":
        problems, unfinished = manage.check(), twins.check()
        for problem in problems + unfinished:
            console.print(problem, highlight=False, markup=False)
        console.print(f"{len(problems)} stub file(s) out of sync" if problems
                      else "stubs are in sync with solutions/")
        console.print(f"{len(unfinished)} problem(s) in the Chinese notebooks" if unfinished
                      else f"every notebook has its Chinese twin in notebooks/{twins.LANG}/")
        return 1 if problems or unfinished else 0
    if args.action == "zh-sync":
        try:
            reports = twins.sync()
        except ValueError as error:
            raise UserError(str(error)) from None
        for report in reports:
            console.print(zh_line(report), highlight=False, markup=False)
        return 0
    if args.action == "checklist":
        return _checklist(console, args.check)
    if args.action == "classroom":
        from ..workbook import classroom  # the ladder's table: the simulator, the SDK

        try:
            sys.stdout.write(classroom.workflow(args.exercises or handed_out(), points.load()))
        except ValueError as error:
            raise UserError(str(error)) from None
        return 0
    if args.action == "export":
        from ..workbook import export  # via classroom, the ladder: the simulator, the SDK

        try:
            done = export.export(args.dir, args.exercises)
        except ValueError as error:
            raise UserError(str(error)) from None
        for line in done:
            console.print(f"  {line}", highlight=False)
        numbers = ",".join(str(s.number) for s in args.exercises)
        console.print(f"wrote {args.dir}: hand it out; grade the returned copies with "
                      f"`ctxlab room --stages {numbers} PATH...`", highlight=False)
        return 0
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


def _checklist(console: Console, check: bool) -> int:
    """Write (or with ``check`` only compare) the appendix B pages; 1 when out of date."""
    try:
        changed = (checklist_page.stale if check else checklist_page.write)(repo_root())
    except ValueError as error:
        raise UserError(str(error)) from None
    if check and changed:
        console.print(f"out of date: {', '.join(changed)}: run `ctxlab workbook checklist`",
                      highlight=False, markup=False)
        return 1
    what = "wrote" if changed else "up to date:"
    console.print(f"{what} {', '.join(changed or checklist_page.PAGES.values())}",
                  highlight=False, markup=False)
    return 0
