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
