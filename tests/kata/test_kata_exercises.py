"""A stage page's timed kata turns green with only the exercises it names written: its test
command runs on a workbook where those exercises hold the reference and every other exercise
of the stage is still a stub (a test that needs another exercise would fail there). Each kata
is a pytest session of its own on a copy of the stage: a check of the docs that grades nothing
a learner writes, so `make reliability`'s, not `make test`'s."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ctxlab.workbook.generate import BEGIN, END, stub_source
from ctxlab.workbook.layout import impl_root, repo_root, stage

PAGES = repo_root() / "docs" / "interview"
KATA = re.compile(r"^## Timed kata: .*?\n\n(?P<intro>.*?)\n\n.*?```sh\n(?P<command>.*?)```",
                  re.M | re.S)


def kata(number: int) -> tuple[set[str], list[str]]:
    """The exercises a stage page's kata names and its test command's arguments."""
    found = KATA.search((PAGES / f"stage-{number}.md").read_text(encoding="utf-8"))
    assert found, f"stage-{number}.md: no kata with a command"
    return set(re.findall(r"\b(\d\.\d)\b", found["intro"])), shlex.split(found["command"])


def only(solved: set[str], source: str) -> str:
    """``source`` with the markers of the ``solved`` exercises removed: those bodies stay."""
    out, keep_end = [], False
    for line in source.splitlines(keepends=True):
        if (match := BEGIN.match(line)) and match["exercise"] in solved:
            keep_end = True
            continue
        if keep_end and END.match(line):
            keep_end = False
            continue
        out.append(line)
    return "".join(out)


def partial_stage(root: Path, number: int, solved: set[str]) -> None:
    info = stage(number)
    source = impl_root("solutions") / info.package
    for path in source.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(source).as_posix()
        text, _ = stub_source(only(solved, path.read_text(encoding="utf-8")), info, rel)
        target = root / info.package / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


@pytest.mark.reliability
@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_the_kata_turns_green_with_only_its_exercises(tmp_path: Path, number: int) -> None:
    solved, argv = kata(number)
    assert solved and argv[0].endswith("pytest") and "--impl" in argv, (number, solved, argv)
    partial_stage(tmp_path, number, solved)
    stubbed = [p for p in (tmp_path / stage(number).package).rglob("*.py")
               if "NotImplementedError" in p.read_text(encoding="utf-8")]
    assert stubbed, "the other exercises of the stage must still be stubs"
    env = dict(os.environ, CTXLAB_STAGES_ROOT=str(tmp_path), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *argv[1:]], cwd=repo_root(), env=env, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stdout[-1500:]
