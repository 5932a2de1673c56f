"""``ctxlab hint N.M``: the next of three hints for an exercise."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from ..workbook.hints import next_hint
from .common import UserError


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("hint", help="show the next hint for an exercise, e.g. 2.3")
    parser.add_argument("exercise", help="exercise number, e.g. 1.2")
    parser.set_defaults(run=run)


def hint_panel(exercise: str, level: int, text: str) -> Panel:
    """The hint as written: plain text, so code such as ``kept[drop:]`` is never read as
    rich markup. The last one names the command that copies the stage's reference; the title
    fits in 80 columns."""
    stage = exercise.split(".", 1)[0]
    last = f" (last; next: `ctxlab workbook solve {stage}`)" if level == 3 else ""
    return Panel(Text(text), title=Text(f"exercise {exercise} — hint {level}/3{last}"))


def run(args: argparse.Namespace) -> int:
    try:
        level, text = next_hint(args.exercise)
    except KeyError as error:
        raise UserError(error.args[0]) from None
    Console().print(hint_panel(args.exercise, level, text))
    return 0
