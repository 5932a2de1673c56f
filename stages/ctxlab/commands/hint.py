"""``ctxlab hint N.M``: the next of three hints for an exercise."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from ..view.wrap import Wrapped
from ..workbook.hints import next_hint
from ..workbook.lang import chinese
from .common import UserError


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "hint",
        description="Show the next of an exercise's three hints (vague to specific). In "
                    "Chinese when CTXLAB_LANG=zh is set or the locale is zh_* (LC_ALL, "
                    "LC_MESSAGES, LANG); CTXLAB_LANG=en forces English.")
    parser.add_argument("exercise", help="exercise number, e.g. 1.2")
    parser.set_defaults(run=run)


def hint_panel(exercise: str, level: int, text: str, zh: bool = False) -> Panel:
    """The hint as written: plain text, so code such as ``kept[drop:]`` is never read as
    rich markup, its lines broken where Chinese and code allow (``view.wrap``); the last one
    names the command that copies the stage's reference; the title fits in 80 columns, in
    Chinese when ``zh``."""
    stage = exercise.split(".", 1)[0]
    if zh:
        last = f"（最后一条；下一步：`ctxlab workbook solve {stage}`）" if level == 3 else ""
        return Panel(Wrapped(text), title=Text(f"练习 {exercise} — 提示 {level}/3{last}"))
    last = f" (last; next: `ctxlab workbook solve {stage}`)" if level == 3 else ""
    return Panel(Wrapped(text), title=Text(f"exercise {exercise} — hint {level}/3{last}"))


def run(args: argparse.Namespace) -> int:
    try:
        level, text = next_hint(args.exercise)
    except KeyError as error:
        raise UserError(error.args[0]) from None
    Console().print(hint_panel(args.exercise, level, text, chinese()))
    return 0
