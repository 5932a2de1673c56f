"""Subcommands of ``ctxlab``; each module has ``register(subparsers)`` and sets ``run``."""

from __future__ import annotations

from . import demo, grade_cmd, hint, models_cmd, run_cmd, serve, workbook_cmd
from .common import UserError

COMMANDS = (run_cmd, demo, serve, grade_cmd, hint, workbook_cmd, models_cmd)

__all__ = ["COMMANDS", "UserError"]
