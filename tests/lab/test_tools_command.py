"""run_command: one program, no shell, scrubbed env, timeout, output cap (DESIGN §2)."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxlab.tools import ToolBox, Workspace

SPAWN = """\
import subprocess, sys, time
subprocess.Popen([sys.executable, "ticker.py"], stdout=subprocess.DEVNULL)
time.sleep(30)
"""
TICKER = """\
import time
while True:
    with open("ticks", "a") as f:
        f.write(".")
    time.sleep(0.02)
"""


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("TOP-SECRET\n")
    return folder


@pytest.fixture
def box(tmp_path: Path, outside: Path) -> Iterator[ToolBox]:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("alpha\n")
    (src / "spawn.py").write_text(SPAWN)
    (src / "ticker.py").write_text(TICKER)
    (src / "leak.txt").symlink_to(outside / "secret.txt")
    (src / "linkdir").symlink_to(outside)
    with Workspace(src) as ws:
        yield ToolBox(ws, timeout=5.0)


def py(code: str) -> str:
    """A run_command line that runs ``code`` (which must not contain double quotes)."""
    return f'python3 -c "{code}"'


@pytest.mark.parametrize(
    ("command", "operator"),
    [
        ("echo a; echo b", ";"),
        ("echo a && echo b", "&&"),
        ("false || echo b", "||"),
        ("cat a.txt | wc -l", "|"),
        ("echo `whoami`", "`"),
        ("echo $(whoami)", "$("),
        ('echo "$(whoami)"', "$("),
        ("echo hi > out.txt", ">"),
        ("echo hi >> out.txt", ">>"),
        ("cat < a.txt", "<"),
        ("python3 spawn.py &", "&"),
        ("echo a\necho b", "\n"),
    ],
)
def test_shell_operators_are_refused(box: ToolBox, command: str, operator: str) -> None:
    out = box.run("run_command", {"command": command})
    assert out.is_error
    assert out.content.startswith(f"Error: {operator!r} is not allowed")
    assert "single program" in out.content
    assert not (box.root / "out.txt").exists()
    assert not (box.root / "ticks").exists()


def test_quoted_metacharacters_are_plain_arguments(box: ToolBox) -> None:
    command = py("import sys; print(sys.argv[1:])") + " 'a|b;c' \\>"
    out = box.run("run_command", {"command": command})
    assert out.content == "['a|b;c', '>']\n[exit code: 0]"


@pytest.mark.parametrize(
    "argument",
    ["OUTSIDE/secret.txt", "../outside/secret.txt", "leak.txt", "linkdir/secret.txt",
     "--file=OUTSIDE/secret.txt"],
)
def test_arguments_pointing_outside_are_refused(
    box: ToolBox, outside: Path, argument: str
) -> None:
    argument = argument.replace("OUTSIDE", str(outside))
    out = box.run("run_command", {"command": f"cat {argument}"})
    assert out.is_error and "points outside the workspace" in out.content
    assert "TOP-SECRET" not in out.content


def test_absolute_path_inside_the_workspace_is_allowed(box: ToolBox) -> None:
    out = box.run("run_command", {"command": f"cat {box.root / 'a.txt'}"})
    assert out.content == "alpha\n[exit code: 0]"


def test_environment_is_scrubbed(box: ToolBox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-should-never-leak")
    monkeypatch.setenv("CTXLAB_PARENT_ONLY", "parent-value")
    out = box.run("run_command", {"command": "env"})
    assert not out.is_error
    assert "sk-ant-should-never-leak" not in out.content
    assert "parent-value" not in out.content
    lines = out.content.splitlines()[:-1]  # drop the exit code line
    env = dict(line.split("=", 1) for line in lines)
    assert set(env) == {"PATH", "HOME", "LANG", "LC_ALL", "PYTHONDONTWRITEBYTECODE",
                        "PYTHONHASHSEED"}
    assert env["HOME"] == str(box.root)
    assert env["LC_ALL"] == "C.UTF-8"


def test_runs_in_the_workspace_root_with_stderr_and_exit_code(box: ToolBox) -> None:
    cwd = box.run("run_command", {"command": py("import os; print(os.getcwd())")})
    assert cwd.content == f"{box.root}\n[exit code: 0]"
    code = "import sys; print('to stderr', file=sys.stderr); sys.exit(3)"
    failed = box.run("run_command", {"command": py(code)})
    assert failed.content == "to stderr\n[exit code: 3]"
    assert not failed.is_error  # the tool worked; the exit code tells the model the rest


def test_timeout_kills_the_command_quickly(tmp_path: Path) -> None:
    box = ToolBox(tmp_path, timeout=0.5)
    start = time.monotonic()
    out = box.run("run_command", {"command": py("import time; time.sleep(30)")})
    assert time.monotonic() - start < 3
    assert out.is_error and "timed out after 0.5 s" in out.content


def test_timeout_kills_the_whole_process_group(box: ToolBox) -> None:
    slow = ToolBox(box.root, timeout=1.0)
    out = slow.run("run_command", {"command": "python3 spawn.py"})
    assert out.is_error and "timed out" in out.content
    ticks = box.root / "ticks"
    time.sleep(0.2)
    before = ticks.stat().st_size
    assert before > 0  # the grandchild did run
    time.sleep(0.3)
    assert ticks.stat().st_size == before  # and it is dead now


def test_huge_output_is_capped_while_reading(box: ToolBox) -> None:
    tracemalloc.start()
    try:
        command = py("import sys; sys.stdout.write('x' * 10_000_000)")
        out = box.run("run_command", {"command": command})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not out.is_error
    assert out.content.startswith("x" * box.output_cap + "\n")
    assert len(out.content.encode()) <= box.output_cap + 200
    assert f"{10_000_000 - box.output_cap} bytes dropped" in out.content
    assert out.content.endswith("[exit code: 0]")
    assert peak < 2_000_000  # never held the 10 MB


def test_output_cap_is_configurable(tmp_path: Path) -> None:
    out = ToolBox(tmp_path, output_cap=1000).run(
        "run_command", {"command": py("print('y' * 5000)")}
    )
    assert out.content.split("\n")[0] == "y" * 1000
    assert "4001 bytes dropped" in out.content


def test_binary_output_is_described(box: ToolBox) -> None:
    command = py("import sys; sys.stdout.buffer.write(bytes(range(256)))")
    out = box.run("run_command", {"command": command})
    assert out.content == "[binary output: 256 bytes]\n[exit code: 0]"


def test_invalid_utf8_output_is_replaced(box: ToolBox) -> None:
    code = r"import sys; sys.stdout.buffer.write(b'caf\xe9 ok')"
    out = box.run("run_command", {"command": py(code)})
    assert out.content == "caf\ufffd ok\n[exit code: 0]"


def test_unknown_program_and_unparsable_command(box: ToolBox) -> None:
    missing = box.run("run_command", {"command": "no-such-program-xyz --help"})
    assert missing.is_error and "command not found" in missing.content
    broken = box.run("run_command", {"command": 'echo "unclosed'})
    assert broken.is_error and "cannot parse" in broken.content
    empty = box.run("run_command", {"command": "   "})
    assert empty.is_error and "empty" in empty.content
