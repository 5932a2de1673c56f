"""README.zh-CN.md stays in step with the project: its stage map names the real packages, its
commands parse, and it uses the same guide terms as the English glossary."""

from __future__ import annotations

import re
import shlex

import pytest

from ctxlab.cli import build_parser
from ctxlab.workbook.layout import STAGES, repo_root

ROOT = repo_root()
ZH = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
EN = (ROOT / "README.md").read_text(encoding="utf-8")


def command_lines() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", ZH, flags=re.S)
    lines = [line.split("#", 1)[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line.startswith("ctxlab ")]


def test_the_stage_map_names_every_stage_package() -> None:
    for s in STAGES:
        assert re.search(rf"^\| {s.number} \| `{s.package}` \|", ZH, flags=re.M), s.package


@pytest.mark.parametrize("line", command_lines())
def test_every_command_parses(line: str) -> None:
    assert callable(build_parser().parse_args(shlex.split(line)[1:]).run)


def test_the_guide_terms_match_the_english_glossary() -> None:
    glossary = EN.split("## Glossary", 1)[1]
    rows = [line.split("|")[1:3] for line in glossary.splitlines() if line.startswith("| ")]
    terms = [re.sub(r"\(.*?\)", "", guide).strip() for _, guide in rows[1:]]
    words = [w.strip() for term in terms for w in term.split("/") if w.strip()]
    assert len(words) >= 10
    missing = [w for w in words if w not in ZH]
    assert not missing, missing
