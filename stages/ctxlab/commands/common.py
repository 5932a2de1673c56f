"""What subcommands share: the user-error type, JSON output and the layer options."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


class UserError(Exception):
    """An ordinary mistake: printed as one line, exit status 2, no traceback."""


def print_json(data: Any) -> None:
    """One JSON document on stdout (``--json`` on every report command)."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def option(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` for a stage's ``make_layer`` (``--set``); the value is read as JSON when it
    parses (``5000``, ``0.5``, ``false``), else kept as a string."""
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def add_layer_options(parser: argparse.ArgumentParser, *, what: str = "run") -> None:
    """``--impl``, ``--chain`` and ``--set KEY=VALUE``: which implementation to ``what`` and
    the options for the stage's ``make_layer`` (the same on run, compare, accept, replay,
    ladder)."""
    parser.add_argument("--impl", choices=("solutions", "stages"), default="solutions",
                        help=f"{what} the reference (default) or your workbook")
    parser.add_argument("--chain", choices=("reference", "mine"), default="reference",
                        help="with --impl stages: other stages from the reference or yours")
    parser.add_argument("--set", dest="options", type=option, action="append", default=[],
                        metavar="KEY=VALUE", help="an option for the stage's make_layer, "
                                                  "e.g. --set naive=true (repeatable)")


def check_layer_options(stage: int, options: dict[str, Any]) -> None:
    """Build the layer once, so a stage that does not load or a wrong ``--set`` is one clear
    line before any work."""
    from ..runner import load_stage

    try:
        load_stage(stage).make_layer(**options)
    except ImportError as error:
        raise UserError(f"stage {stage} cannot be loaded: {error}") from None
    except (TypeError, ValueError) as error:
        raise UserError(f"stage {stage}'s make_layer does not take these options: "
                        f"{error}") from None
