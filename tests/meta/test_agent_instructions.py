"""AGENTS.md (and CLAUDE.md, which points to it) say true things about this repository: the
commands, paths and stub wording they rely on exist, and the three modes are documented."""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest

from ctxlab.cli import build_parser
from ctxlab.workbook.layout import STAGES, repo_root

ROOT = repo_root()
AGENTS = (ROOT / "AGENTS.md").read_text(encoding="utf-8")


def commands() -> list[list[str]]:
    """Every ``ctxlab …`` command line in the file's code block, placeholders filled in."""
    block = AGENTS.split("```sh", 1)[1].split("```", 1)[0]
    lines = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    return [shlex.split(line.replace("[N]", "2").replace("N.M", "2.3").replace("sN", "s2")
                        .replace(" N", " 2"))
            for line in lines if line.startswith(".venv/bin/ctxlab")]


def test_claude_md_points_to_agents_md() -> None:
    claude = (ROOT / "CLAUDE.md").read_text(encoding="utf-8")
    assert "AGENTS.md" in claude and ".agent-mode" in claude


@pytest.mark.parametrize("argv", commands(), ids=lambda a: " ".join(a[1:3]))
def test_every_command_it_shows_parses(argv: list[str]) -> None:
    args = build_parser().parse_args(argv[1:])
    assert callable(args.run)


def test_named_commands_and_paths_exist() -> None:
    parser = build_parser()
    for argv in (["workbook", "solve", "2"], ["workbook", "reset", "2"], ["workbook", "check"]):
        assert callable(parser.parse_args(argv).run)
    for s in STAGES:
        assert (ROOT / "stages" / s.package).is_dir()
        assert (ROOT / "solutions" / s.package / "hints.toml").is_file()
        assert list((ROOT / "notebooks").glob(f"{s.notebook}.ipynb"))
        assert (ROOT / "tests" / f"s{s.number}").is_dir()
    assert (ROOT / "tests" / "ladder").is_dir()


def test_the_stub_wording_it_quotes_is_the_generated_one() -> None:
    quoted = re.search(r'NotImplementedError\("Exercise N\.M — name\(\): see notebooks/', AGENTS)
    assert quoted is not None
    stub = (ROOT / "stages" / "s1_loop" / "loop.py").read_text(encoding="utf-8")
    assert re.search(r'NotImplementedError\("Exercise 1\.\d — \w+\(\): see notebooks/01_', stub)
    assert "### BEGIN SOLUTION" in (ROOT / "solutions" / "s1_loop" / "loop.py").read_text()


def test_the_modes_and_how_to_switch_off_are_documented() -> None:
    for mode in ("`tutor`", "`workshop`", "`off`"):
        assert mode in AGENTS
    assert "echo off > .agent-mode" in AGENTS and "rm .agent-mode" in AGENTS
    for rule in ("write, complete or rewrite the body of an exercise in `stages/sN_*/`",
                 "copy from `solutions/`", "point to `ctxlab hint N.M`",
                 "the cell of the stage's notebook"):
        assert rule in " ".join(AGENTS.split())
    ignored = subprocess.run(["git", "check-ignore", "-q", ".agent-mode"], cwd=ROOT,
                             check=False).returncode == 0
    assert ignored  # a learner's `off` is not committed with their work …
    assert "git add -f .agent-mode" in AGENTS  # … an instructor's `workshop` is, on purpose


def test_the_readme_says_how_to_work_through_it_near_the_top() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## How to work through it")
    assert readme[:start].count("\n") < 40, "the walk-through belongs near the top"
    section = readme[start:].split("\n## ", 1)[0]
    for needed in ("tutor mode", "AGENTS.md", "echo off > .agent-mode", "ctxlab hint N.M",
                   "ctxlab grade N", "--impl stages"):
        assert needed in section, needed
