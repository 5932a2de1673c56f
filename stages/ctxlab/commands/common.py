"""What subcommands share: the user-error type and JSON output."""

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
