"""``ctxlab grade [N]``: grade your workbook stage by stage and say what to do next."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..workbook import grade, junit, points, progress
from ..workbook.lang import chinese
from ..workbook.layout import handed_out, repo_root, stage
from .common import UserError, print_json

STYLE = {grade.TODO: "yellow", grade.DONE: "green", grade.PITFALL: "cyan",
         grade.HOLDS: "green", grade.FAILING: "red", grade.REGRESSION: "bold red",
         grade.BROKEN: "bold red"}
TO_DO = (grade.REGRESSION, grade.BROKEN, grade.FAILING, grade.TODO)  # what next_step points at


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("grade")
    parser.add_argument("stage", type=int, nargs="?", help="only this stage")
    parser.add_argument("--chain", choices=("reference", "mine"), default="reference",
                        help="other stages from the reference (default) or your workbook")
    parser.add_argument("--json", action="store_true",
                        help='print JSON: {"total", "max", "exercises": [...]}')
    parser.add_argument("--junit", type=Path, metavar="FILE",
                        help="also write a JUnit report (pytest's xunit1 format, one test case "
                             "per exercise and ladder cell, points as properties)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        stages = [stage(args.stage)] if args.stage else list(handed_out())
        table = points.load()
    except ValueError as error:
        raise UserError(str(error)) from None
    stages = [s for s in stages if (repo_root() / "tests" / f"s{s.number}").exists()]
    rows = []
    status = Console(stderr=True)
    before = progress.passed()  # FAILING (never passed) apart from REGRESSION (passed once)
    for s in stages:
        with status.status(f"grading stage {s.number} ({s.package}) …"):
            rows += grade.classify(s, grade.run_tests(s, args.chain), before)
    progress.remember(r.item.split()[1] for r in rows
                      if r.status == grade.DONE and r.item.startswith("exercise "))
    scored = points.score(rows, table)
    if args.junit:
        junit.write(scored, args.junit)
    if args.json:
        print_json(points.report(scored))
        return 0
    shown = Table(title="Workbook grade")
    for column in ("stage", "exercise / pitfall", "status", "points", "detail"):
        shown.add_column(column, justify="right" if column == "points" else "left")
    for r in scored:
        shown.add_row(str(r.stage), escape(r.item), f"[{STYLE[r.status]}]{r.status}[/]",
                      f"{r.points}/{r.max}", escape(r.detail))
    console = Console()
    console.print(shown)
    total = points.report(scored)
    zh = chinese()
    console.print(f"得分：{total['total']} / {total['max']}（每项分值见 solutions/grading.toml）"
                  if zh else f"Score: {total['total']} of {total['max']} points "
                  "(points per item: solutions/grading.toml)")
    console.print(escape(next_step(rows, zh)))
    return 0


def next_step(rows: list[grade.Row], zh: bool = False) -> str:
    """The one line after the table: the first item still to do, with its hint command."""
    todo = next((r for r in rows if r.status in TO_DO), None)
    if todo is None and zh:
        return "评到的都已完成。PITFALL 行是下一阶段要修的坑（`ctxlab ladder` 列出各阶段的格子）。"
    if todo is None:
        return ("Everything graded is done. Pitfall rows show what the next stage fixes "
                "(`ctxlab ladder` shows every stage's cells).")
    number = todo.item.split()[1] if todo.item.startswith("exercise") else ""
    if zh:
        item = todo.item.replace("exercise ", "练习 ", 1).replace("pitfall ", "坑 ", 1)
        hint = f" —— 卡住了？运行 `ctxlab hint {number}`" if number else ""
        detail = (todo.detail.replace(f": {grade.STUB}", "：还是桩代码")
                  .replace(grade.NO_TEST, "没有跑到任何评分测试"))
        needs = re.fullmatch(grade.NEEDS.format("(.+)"), detail)
        if needs:
            detail = f"需要先完成练习 {needs.group(1)}"
        return f"下一步：{item}（{todo.status}）：{detail}{hint}"
    hint = f" — stuck? `ctxlab hint {number}`" if number else ""
    return f"Next: {todo.item} ({todo.status.lower()}): {todo.detail}{hint}"
