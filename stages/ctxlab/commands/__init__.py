"""Subcommands of ``ctxlab``: each module has ``register(subparsers)`` and sets ``run``.

``COMMANDS`` names each command, its module and its line in ``ctxlab --help``. A module is
imported only when its command is chosen (``Subcommands``), so ``ctxlab --help`` and each
command start without the imports of the others (the simulator and the SDK above all, which
``ctxlab models`` or ``ctxlab replay`` never use).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .common import UserError


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, its module in ``ctxlab.commands``, its one-line help."""

    name: str
    module: str
    help: str


COMMANDS = (
    Command("run", "run_cmd", "run a stage on a scenario (live dashboard)"),
    Command("compare", "compare_cmd", "run every stage on one task: the total bill"),
    Command("accept", "accept_cmd", "force each layer and check it fires (§12.8)"),
    Command("example", "example_cmd", "reproduce a worked example (ch8.3)"),
    Command("demo", "demo", "a short tour of the simulated API (no key needed)"),
    Command("serve", "serve", "serve the simulated Messages API over HTTP"),
    Command("grade", "grade_cmd", "grade your workbook (all stages, or one)"),
    Command("watch", "watch_cmd", "grade a stage again each time you save one of its files"),
    Command("hint", "hint", "show the next hint for an exercise, e.g. 2.3"),
    Command("workbook", "workbook_cmd", "reset, solve or check the workbook stages"),
    Command("models", "models_cmd", "list the simulated models and their prices"),
    Command("replay", "replay_cmd", "replay a Claude Code session log through a stage"),
    Command("serverside", "serverside_cmd",
            "client-side vs server-side context management: one task, one bill (§6.6)"),
    Command("probe", "probe_cmd",
            "ask probe questions after each kind of compaction and score the answers (§12.5)"),
    Command("cachecost", "cachecost_cmd",
            "the cache cost of compacting now or later, and the cold-cache argument (§6.5–6.7)"),
    Command("bench", "bench_cmd",
            "measure the context layer's per-turn cost against a full tokenization"),
    Command("calibrate", "calibrate_cmd", "behaviour statistics of session logs"),
    Command("ladder", "ladder_cmd", "judge every stage pitfall, with its evidence (§14)"),
    Command("room", "room_cmd",
            "grade many participants' workbooks with your tests and reference"),
    Command("rot", "rot_cmd",
            "the needle experiment: found by length, position and kind of fact (§4)"),
)
BY_NAME = {c.name: c for c in COMMANDS}


class Subcommands(argparse._SubParsersAction):
    """argparse's subcommands, each listed with its help from ``COMMANDS`` and given its own
    parser (its module's ``register``) only once it is chosen."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loaded: set[str] = set()
        for command in COMMANDS:  # a placeholder: the name and its help, no options yet
            self.add_parser(command.name, help=command.help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Sequence[Any], option_string: str | None = None) -> None:
        name = values[0]
        if name in BY_NAME and name not in self._loaded:
            self._loaded.add(name)
            del self._name_parser_map[name]  # its module's register() adds the real one
            importlib.import_module(f"{__name__}.{BY_NAME[name].module}").register(self)
        super().__call__(parser, namespace, values, option_string)


__all__ = ["COMMANDS", "Command", "Subcommands", "UserError"]
