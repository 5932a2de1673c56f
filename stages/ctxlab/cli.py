"""The ``ctxlab`` command (DESIGN §6).

Every subcommand lives in its own module under ``ctxlab.commands`` and registers itself here.
Ordinary mistakes (an unknown scenario, a port in use, a bad option, an exercise not written
yet) print one readable line and exit with status 2; anything else (a bug) prints one line too
and exits with status 1; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape

from . import jail
from .brain.retrieval import switched
from .commands import COMMANDS, UserError
from .workbook.router import FINDER, use


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxlab",
        description="Context Engineering Workbook: build an agent's context layer stage by "
                    "stage, offline, against a simulated Anthropic Messages API.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    selection = FINDER.selection  # a command may switch implementation: only for its own run
    try:
        with switched(getattr(args, "rot", "on") == "on"):  # --rot (commands.common)
            return int(args.run(args) or 0)
    except (UserError, OSError, jail.Unavailable) as error:  # a jail CI requires is missing
        if args.debug:
            raise
        Console(stderr=True).print(f"[bold red]error:[/] {escape(str(error))}", highlight=False,
                                   soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        return 130
    except NotImplementedError as error:  # an unfinished exercise: its message names it
        if args.debug:
            raise
        Console(stderr=True).print(
            f"[bold red]error:[/] {escape(str(error).splitlines()[0] if str(error) else '')} — "
            "your workbook is not finished there yet (`ctxlab grade` shows what is left; "
            "`ctxlab hint N.M` helps)", highlight=False, soft_wrap=True)
        return 2
    except Exception as error:  # a bug, not a mistake: still one line unless --debug
        if args.debug:
            raise
        Console(stderr=True).print(
            f"[bold red]internal error:[/] {escape(type(error).__name__)}: "
            f"{escape(str(error).splitlines()[0] if str(error) else '')} "
            "(run again with --debug for the traceback)", highlight=False, soft_wrap=True)
        return 1
    finally:
        if FINDER.selection != selection:  # called in-process (tests, notebooks): put it back
            use(selection.impl, selection.stage, selection.chain)


if __name__ == "__main__":
    sys.exit(main())
