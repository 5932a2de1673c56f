"""Subcommands of ``ctxlab``; each module has ``register(subparsers)`` and sets ``run``."""

from __future__ import annotations

from . import demo, models_cmd, serve
from .common import UserError

COMMANDS = (demo, serve, models_cmd)

__all__ = ["COMMANDS", "UserError"]
