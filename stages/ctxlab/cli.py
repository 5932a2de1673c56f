"""The ``ctxlab`` command (DESIGN §6).

Every subcommand lives in its own module under ``ctxlab.commands``, imported only when that
command runs (``commands.COMMANDS``): ``ctxlab --help`` lists them without importing any.
Ordinary mistakes (an unknown scenario, a port in use, a bad option, a mistyped command, an
exercise not written yet, an error raised in the learner's own code) print one readable line
and exit with status 2; anything else (a bug) prints one line too and exits with status 1;
``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext

from rich.console import Console
from rich.markup import escape

from . import jail, startup
from .commands import Subcommands, UserError
from .workbook.blame import blame, describe
from .workbook.router import FINDER, use

INVALID_CHOICE = re.compile(r"invalid choice: '?(?P<value>[^'(]*?)'? "
                            r"\(choose from (?P<choices>.*)\)$")


class Parser(argparse.ArgumentParser):
    """argparse's parser, with "did you mean" for a mistyped command or choice (``ctxlab
    rnu``): the closest valid one, when one is close (difflib)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        match = INVALID_CHOICE.search(message)
        if match is not None:
            choices = [c.strip(" '") for c in match["choices"].split(",")]
            close = difflib.get_close_matches(match["value"], choices, n=1)
            if close:
                message = (f"{message[:match.start()]}invalid choice: {match['value']!r}; "
                           f"did you mean {close[0]!r}?")
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ctxlab",
        description="Context Engineering Workbook: build an agent's context layer stage by "
                    "stage, offline, against a simulated Anthropic Messages API.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_subparsers(dest="command", metavar="COMMAND", action=Subcommands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command: ``argv``, or this process's own command line (``None``: the ``ctxlab``
    script, whose process ends with the command). Its modules load with the garbage collector
    held back and are then set aside from it (``startup``)."""
    with startup.loading():
        parser = build_parser()
        args = parser.parse_args(argv)  # imports the command's module
        rot = _rot(args)
    if args.command is None:
        parser.print_help()
        return 0
    selection = FINDER.selection  # a command may switch implementation: only for its own run
    try:
        with rot, startup.set_aside(release=argv is not None):
            return int(args.run(args) or 0)
    except (UserError, OSError, jail.Unavailable) as error:  # a jail CI requires is missing
        if args.debug:
            raise
        _say(f"[bold red]error:[/] {escape(str(error))}")
        return 2
    except KeyboardInterrupt:
        return 130
    except NotImplementedError as error:  # an unfinished exercise: its message names it
        if args.debug:
            raise
        _say(f"[bold red]error:[/] {escape(_first_line(error))} — your workbook is not finished "
             "there yet (`ctxlab grade` shows what is left; `ctxlab hint N.M` helps)")
        return 2
    except Exception as error:  # a bug, not a mistake: still one line unless --debug
        if args.debug:
            raise
        where = blame(error)
        if where is not None:  # raised in (or through) the learner's own code: theirs to fix
            helps = f"`ctxlab hint {where.exercise}` helps; " if where.exercise else ""
            _say(f"[bold red]error:[/] {escape(describe(where, error))} ({helps}--debug shows "
                 "the traceback)")
            return 2
        if isinstance(error, OSError):  # a file or a port: the user's to fix
            _say(f"[bold red]error:[/] {escape(str(error))}")
            return 2
        _say(f"[bold red]internal error:[/] {escape(type(error).__name__)}: "
             f"{escape(_first_line(error))} (run again with --debug for the traceback)")
        return 1
    finally:
        if FINDER.selection != selection:  # called in-process (tests, notebooks): put it back
            use(selection.impl, selection.stage, selection.chain)


def _rot(args: argparse.Namespace) -> AbstractContextManager[None]:
    """The simulated model's retrieval as ``--rot on|off`` says (``commands.common``) for the
    command's run; a command without the option does not run that model: nothing to switch."""
    if not hasattr(args, "rot"):
        return nullcontext()
    from .brain.retrieval import switched  # the simulator's: imported by commands that run it

    return switched(args.rot == "on")


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else ""


def _say(markup: str) -> None:
    """One line on stderr (a terminal narrower than it wraps it; nothing is cut)."""
    Console(stderr=True).print(markup, highlight=False, soft_wrap=True)


if __name__ == "__main__":
    sys.exit(main())
