"""``ctxlab`` starts cheaply (issue 49): a command's module is imported only when that command
runs, so ``ctxlab --help`` lists every command without importing the SDK (a second of CPU),
the simulator or the tokenizer, and a command that needs none of them does not pay for them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ctxlab.cli import build_parser
from ctxlab.commands import COMMANDS, Command

HEAVY = ("anthropic", "tiktoken", "numpy", "ctxlab.sim", "ctxlab.brain")
CHILD = """
import json, sys
from ctxlab.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


def started(*argv: str) -> tuple[str, set[str]]:
    """What ``ctxlab ARGV`` prints in a fresh process at 80 columns, and the modules it loaded."""
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "80"}, timeout=120, check=True)
    printed, _, modules = done.stdout.rstrip("\n").rpartition("\n")
    return printed, set(json.loads(modules))


def commands_loaded(modules: set[str]) -> set[str]:
    return {c.name for c in COMMANDS if f"ctxlab.commands.{c.module}" in modules}


def test_help_lists_every_command_without_importing_one() -> None:
    printed, modules = started("--help")
    assert commands_loaded(modules) == set()
    assert [m for m in HEAVY if m in modules] == []
    for command in COMMANDS:
        assert f"    {command.name}" in printed
        assert command.help.split()[-1] in printed  # the line is there, wrapped or not
    assert max(map(len, printed.splitlines())) <= 80


def test_a_command_imports_its_own_module_only() -> None:
    printed, modules = started("models", "--json")
    assert commands_loaded(modules) == {"models"}
    assert "anthropic" not in modules and "ctxlab.sim" not in modules
    assert any(m["id"] == "ctxlab-sim-32k" for m in json.loads(printed))


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_each_command_has_its_own_help_and_one_line_in_the_list(
        command: Command, capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    listed = parser.format_help()
    with pytest.raises(SystemExit) as done:
        parser.parse_args([command.name, "--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: ctxlab {command.name}")
    assert parser.format_help() == listed  # its module added options, not a second line
