"""What subcommands share: the user-error type, number arguments and JSON output."""

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


def positive_int(text: str) -> int:
    """An argparse type: a whole number ≥ 1 (a usage error otherwise)."""
    return bounded_int(text, 1)


def bounded_int(text: str, low: int, high: int | None = None) -> int:
    """A whole number in ``low``..``high``; argparse reports anything else as a usage error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid whole number: {text!r}") from None
    if value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise argparse.ArgumentTypeError(f"must be {span}, not {value}")
    return value
