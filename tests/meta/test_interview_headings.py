"""The interview kit cites notebook sections by their headings (issue 46): a page of
docs/interview/ names the English notebook's heading, a page of docs/interview/zh-CN/ the
Chinese twin's (notebooks/zh-CN/), and every heading a page cites exists in that notebook."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ctxlab.workbook.layout import repo_root

ROOT = repo_root()
CITES = {"en": re.compile(r"[Nn]otebook (\d\d), \"([^\"]+)\""),
         "zh": re.compile(r"[Nn]otebook (\d\d)\s*(?:的)?\s*「([^」]+)」\s*一节")}
PAGES = [(lang, page) for lang, folder in (("en", "docs/interview"),
                                          ("zh", "docs/interview/zh-CN"))
         for page in sorted((ROOT / folder).glob("stage-*.md"))]


GLOSSED = re.compile(r" / (?:[A-Za-z]+ )?[\u4e00-\u9fff]+")
"""An English heading's gloss of a guide term (``the summary / LLM 摘要``), left out of a
citation."""


def headings(number: str, lang: str) -> list[str]:
    """The headings of notebook ``number`` (``"04"``) in ``lang``, without their marks (and
    an English one without its glosses)."""
    folder = ROOT / "notebooks" / ("zh-CN" if lang == "zh" else "")
    [path] = folder.glob(f"{number}_*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = [line.lstrip("#").strip() for c in cells if c["cell_type"] == "markdown"
             for line in "".join(c["source"]).splitlines() if line.startswith("#")]
    return found if lang == "zh" else [GLOSSED.sub("", h) for h in found]


def cited(text: str, lang: str) -> list[tuple[str, str]]:
    """(notebook, heading) pairs a page cites, a heading wrapped over lines made one again."""
    return [(n, re.sub(r"\s*\n\s*", "" if lang == "zh" else " ", title))
            for n, title in CITES[lang].findall(text)]


def missing(text: str, lang: str) -> list[str]:
    """The cited headings that are not the start of a heading of the notebook they name."""
    return [f"notebook {n}: {title!r}" for n, title in cited(text, lang)
            if not any(h.startswith(title) for h in headings(n, lang))]


@pytest.mark.parametrize(("lang", "page"), PAGES, ids=lambda p: getattr(p, "name", p))
def test_every_cited_heading_exists(lang: str, page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert missing(text, lang) == [], page.relative_to(ROOT)
    if lang == "zh":  # a section named by its English title
        assert not re.search(r"[Nn]otebook \d\d\s*(?:的)?\s*\"", text), page.name


def test_the_chinese_pages_cite_sections() -> None:
    assert sum(len(cited(p.read_text(encoding="utf-8"), "zh")) for lang, p in PAGES
               if lang == "zh") >= 10


def test_a_wrong_heading_is_caught() -> None:
    assert missing("Notebook 04「阶段 4 仍然做错的地方」一节。", "zh") == []
    assert missing("Notebook 04「What stage 4 still gets wrong」一节。", "zh") == [
        "notebook 04: 'What stage 4 still gets wrong'"]
    assert missing('Notebook 04, "What stage 4 still gets wrong".', "en") == []
