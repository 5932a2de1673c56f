"""What subcommands share: the user-error type and JSON output."""

from __future__ import annotations

import json
import sys
from typing import Any


class UserError(Exception):
    """An ordinary mistake: printed as one line, exit status 2, no traceback."""


def print_json(data: Any) -> None:
    """One JSON document on stdout (``--json`` on every report command)."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
