"""``ctxlab`` starts cheaply (issue 49): a command's module is imported only when that command
runs, so ``ctxlab --help`` lists every command without importing the SDK (a second of CPU),
the simulator or the tokenizer, and a command that needs none of them does not pay for them."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import pytest

from ctxlab import startup
from ctxlab.cli import build_parser, main
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


@pytest.mark.parametrize("argv", [["hint", "--help"], ["grade", "--help"], ["watch", "--help"],
                                  ["workbook", "reset", "--help"]], ids=" ".join)
def test_commands_that_run_no_model_do_not_import_the_sdk(argv: list[str]) -> None:
    printed, modules = started(*argv)
    assert printed.startswith(f"usage: ctxlab {' '.join(argv[:-1])}")
    assert "anthropic" not in modules and "ctxlab.sim" not in modules


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


def test_a_command_runs_with_its_modules_set_aside_from_the_collector() -> None:
    """The ``ctxlab`` script (``main()``, the process's own command line) loads with the
    collector held back, then freezes what it loaded and leaves it frozen for its exit; a
    caller that goes on (``main(argv)``) gets the collector back as it was."""
    code = ("import gc, json, sys\nfrom ctxlab.cli import main\n"
            "sys.argv = ['ctxlab', 'models', '--json']\n"
            "status = main()\n"
            "print(json.dumps([status, gc.isenabled(), gc.get_freeze_count()]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    status, enabled, frozen = json.loads(done.stdout.splitlines()[-1])
    assert status == 0 and enabled and frozen > 10_000
    before = gc.get_freeze_count()
    assert main(["models", "--json"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == before


def test_set_aside_blocks_nest_and_only_the_outermost_puts_back() -> None:
    with startup.set_aside():
        with startup.set_aside():
            assert gc.get_freeze_count() > 10_000
        assert gc.get_freeze_count() > 10_000  # the inner block put nothing back
    assert gc.get_freeze_count() == 0
    with startup.set_aside():
        frozen = gc.get_freeze_count()
        made = [[]]  # made inside the outer block: the inner one leaves it to the collector
        with startup.set_aside():  # freezes nothing more; a frozen object may die meanwhile
            # (one of pytest-xdist's thread, whose messages run beside the test): <=, not ==
            assert gc.get_freeze_count() <= frozen and gc.is_tracked(made)
            assert any(o is made for o in gc.get_objects(generation=0))
    assert gc.get_freeze_count() == 0
    with startup.loading():
        assert not gc.isenabled()
    assert gc.isenabled()
