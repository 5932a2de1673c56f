"""Subcommands of ``ctxlab``; each module has ``register(subparsers)`` and sets ``run``."""

from __future__ import annotations

from . import (
    accept_cmd,
    bench_cmd,
    cachecost_cmd,
    calibrate_cmd,
    compare_cmd,
    demo,
    example_cmd,
    grade_cmd,
    hint,
    ladder_cmd,
    models_cmd,
    probe_cmd,
    replay_cmd,
    room_cmd,
    rot_cmd,
    run_cmd,
    serve,
    serverside_cmd,
    watch_cmd,
    workbook_cmd,
)
from .common import UserError

COMMANDS = (run_cmd, compare_cmd, accept_cmd, example_cmd, demo, serve, grade_cmd, watch_cmd,
            hint, workbook_cmd, models_cmd, replay_cmd, serverside_cmd, probe_cmd, cachecost_cmd,
            bench_cmd, calibrate_cmd, ladder_cmd, room_cmd, rot_cmd)

__all__ = ["COMMANDS", "UserError"]
