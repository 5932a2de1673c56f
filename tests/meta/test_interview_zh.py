"""The interview kit in Chinese (issue 36): every page of docs/interview/ has a twin in
docs/interview/zh-CN/ with the same code, commands, tests, questions and kata, and Chinese text
at least 30 % of the English page's length in characters.

The pages are listed from docs/interview/, not from the Chinese folder: a page with no twin
fails here by name. Until stage-3.md, stage-4.md and stage-5.md are translated (the part of
issue 36 left to the lead), their three cases fail — expected, and not to be skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ctxlab.workbook.layout import repo_root

ENGLISH = repo_root() / "docs" / "interview"
CHINESE = ENGLISH / "zh-CN"
PAGES = sorted(ENGLISH.glob("*.md"))
FENCE = re.compile(r"```\w*\n.*?```", re.S)
COMMAND = re.compile(r"(?:^|`)(ctxlab [^`\n]+)", re.M)
TEST = re.compile(r"tests/[\w/]+\.py(?:::\w+)?")
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_the_kit_has_its_six_pages() -> None:
    assert [p.name for p in PAGES] == ["README.md"] + [f"stage-{n}.md" for n in range(1, 6)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_each_page_has_a_chinese_twin(page: Path) -> None:
    twin = CHINESE / page.name
    assert twin.is_file(), f"{twin.relative_to(repo_root())} is missing: translate {page.name}"
    en, zh = page.read_text(encoding="utf-8"), twin.read_text(encoding="utf-8")
    assert len(zh) >= 0.3 * len(en), f"{page.name}: {len(zh)} characters for {len(en)}"
    assert len(CJK.findall(FENCE.sub("", zh))) >= 0.2 * len(FENCE.sub("", en)), \
        f"{page.name}: not written in Chinese"
    assert FENCE.findall(zh) == FENCE.findall(en), f"{page.name}: code blocks differ"
    assert sorted(set(COMMAND.findall(zh))) == sorted(set(COMMAND.findall(en))), page.name
    assert set(TEST.findall(en)) <= set(TEST.findall(zh)), f"{page.name}: a test is not named"
    questions = re.findall(r"^## (Q\d+)\. .*?(§[\d.]+)", en, re.M)
    assert re.findall(r"^## (Q\d+)\. .*?(§[\d.]+)", zh, re.M) == questions, page.name
    assert zh.count("**参考答案。**") == en.count("**Model answer.**"), page.name
    kata = re.findall(r"^## Timed kata: .+\((\d+) minutes\)$", en, re.M)
    assert re.findall(r"^## 限时 kata：.+（(\d+) 分钟）$", zh, re.M) == kata, page.name
