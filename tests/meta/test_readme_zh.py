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


def command_lines(text: str = ZH) -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    lines = [line.split("#", 1)[0].strip() for block in blocks for line in block.splitlines()]
    return [line for line in lines if line.startswith("ctxlab ")]


def filled(line: str) -> str:
    """A command with the README's placeholders filled in: ``[N]`` and ``N`` a stage, ``FILE|DIR``
    and ``PATH...`` a path, ``[--json]`` the option, ``…`` (more options) left out."""
    line = line.replace("…", "").replace("[--json]", "--json").replace("[N]", "2")
    line = re.sub(r"\bN\b", "2", line)
    return re.sub(r"\b(?:FILE\|DIR|PATH\.\.\.|DIR)(?=\s|$)", "runs", line)


def test_the_stage_map_names_every_stage_package() -> None:
    for s in STAGES:
        assert re.search(rf"^\| {s.number} \| `{s.package}` \|", ZH, flags=re.M), s.package


@pytest.mark.parametrize("line", command_lines())
def test_every_command_parses(line: str) -> None:
    args = shlex.split(filled(line))[1:]
    if args == ["--help"]:
        with pytest.raises(SystemExit) as done:
            build_parser().parse_args(args)
        assert done.value.code == 0
        return
    assert callable(build_parser().parse_args(args).run)


def test_the_english_commands_are_all_there() -> None:
    """The command list is the English one, command for command (comments translated)."""
    missing = [line for line in command_lines(EN) if line not in command_lines(ZH)]
    assert len(command_lines(EN)) >= 20 and not missing, missing


def test_the_guide_terms_match_the_english_glossary() -> None:
    glossary = EN.split("## Glossary", 1)[1]
    rows = [line.split("|")[1:3] for line in glossary.splitlines() if line.startswith("| ")]
    terms = [re.sub(r"\(.*?\)", "", guide).strip() for _, guide in rows[1:]]
    words = [w.strip() for term in terms for w in term.split("/") if w.strip()]
    assert len(words) >= 10
    missing = [w for w in words if w not in ZH]
    assert not missing, missing


# Section parity (issue 36). Each English `##`/`###` section has a Chinese counterpart, named by
# a marker on the line just above its heading: `<!-- en: ## Quickstart -->` then `## 快速开始`.
# The markers follow the English headings one for one and in order, so a section added, renamed
# or moved in README.md fails here until README.zh-CN.md follows. A Chinese-only section (the
# reader's path to stage 1) has a heading with no marker.
HEADING = re.compile(r"^(#{2,3}) (.+)$", re.M)
MARKER = re.compile(r"^<!-- en: (#{2,3}) (.+?) -->\n(#{2,3}) .+$", re.M)
FIGURE = re.compile(r"\d[\d,.]*\d|\d")


def prose(text: str) -> str:
    """``text`` without fenced code blocks (their ``#`` lines are comments, not headings)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def sections(text: str, starts: list[int]) -> list[str]:
    """The text from each start to the next ``##``/``###`` heading."""
    out = []
    for start in starts:
        body = text[start:].split("\n", 1)[1]
        nxt = HEADING.search(prose(body))
        end = body.find(nxt.group(0)) if nxt else len(body)
        out.append(body[:end])
    return out


def english_sections() -> list[tuple[str, str, str]]:
    """(level, title, text) of each English section."""
    found = list(HEADING.finditer(prose(EN)))
    starts = [EN.index(m.group(0) + "\n") for m in found]
    return [(m.group(1), m.group(2), body)
            for m, body in zip(found, sections(EN, starts), strict=True)]


def chinese_sections() -> list[tuple[str, str, str]]:
    """(level, English title it translates, text) of each marked Chinese section."""
    found = [m for m in MARKER.finditer(ZH)]
    for m in found:
        assert m.group(1) == m.group(3), f"{m.group(2)}: the Chinese heading is not a {m.group(1)}"
    starts = [m.start() + len(m.group(0).split("\n", 1)[0]) + 1 for m in found]
    return [(m.group(1), m.group(2), body)
            for m, body in zip(found, sections(ZH, starts), strict=True)]


def test_every_english_section_has_a_chinese_one_in_the_same_order() -> None:
    english = [(level, title) for level, title, _ in english_sections()]
    chinese = [(level, title) for level, title, _ in chinese_sections()]
    assert len(english) >= 10
    assert chinese == english


@pytest.mark.parametrize("index", range(len(english_sections())))
def test_each_chinese_section_is_a_translation_not_a_stub(index: int) -> None:
    """At least 30 % of the English section's length, and every figure it gives."""
    _, title, en = english_sections()[index]
    pairs = {t: body for _, t, body in chinese_sections()}
    assert title in pairs, f"no Chinese section for {title!r}"
    zh = pairs[title]
    assert len(zh.strip()) >= 0.3 * len(en.strip()), title
    assert re.search(r"[\u4e00-\u9fff]", prose(zh)), title
    missing = sorted(set(FIGURE.findall(prose(en))) - set(FIGURE.findall(prose(zh))))
    assert not missing, f"{title}: figures of the English missing in the Chinese: {missing}"


def generated(text: str) -> list[str]:
    return re.findall(r"<!-- (?:ladder|peers): .*?<!-- /(?:ladder|peers) -->", text, flags=re.S)


def test_the_generated_tables_are_the_english_ones() -> None:
    """The ladder and the peers' bills, byte for byte: the English ones are checked against
    fresh runs (tests/ladder/test_table.py, tests/peers/), so these are too."""
    assert len(generated(EN)) >= 4
    assert generated(ZH) == generated(EN)


def test_a_chinese_reader_is_told_where_the_chinese_notebooks_are() -> None:
    recipe = (ROOT / "Makefile").read_text(encoding="utf-8").split("\nlab:", 1)[1]
    recipe = recipe.split("\n\n", 1)[0]
    assert "notebooks/zh-CN/" in recipe and "notebooks/zh-CN/" in ZH
    assert (ROOT / "notebooks" / "zh-CN").is_dir()  # written under issue 36 (notebooks part)
