"""Hints and notebook headings keep the guide's Chinese term next to the English one, as the
README's glossary gives it (e.g. microcompact / 微压缩): a learner reading the guide in
Chinese finds the same idea under the same word."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from ctxlab.workbook.layout import STAGES, impl_root, repo_root

ROOT = repo_root()


def glossary() -> dict[str, list[str]]:
    """English term → the guide's words for it, from README.md's glossary table."""
    table = (ROOT / "README.md").read_text(encoding="utf-8").split("## Glossary", 1)[1]
    terms = {}
    rows = [line for line in table.splitlines() if line.startswith("| ")][1:]  # no header
    for line in rows:
        english, guide = (cell.strip() for cell in line.split("|")[1:3])
        words = re.sub(r"\(.*?\)", "", guide).split("/")
        terms[re.sub(r"\s*\(.*", "", english)] = [w.strip() for w in words if w.strip()]
    return terms


TERMS = glossary()


def mentions(text: str, term: str) -> bool:
    """``term`` as a word or a word's start (offload, offloaded), not inside a name
    (``summary_reserve``)."""
    return re.search(rf"\b{re.escape(term)}(?!_)", text, flags=re.I) is not None


def untranslated(texts: list[str]) -> list[str]:
    """Terms used in ``texts`` whose Chinese word appears in none of them."""
    joined = "\n".join(texts)
    return [term for term, words in TERMS.items()
            if mentions(joined, term) and not any(w in joined for w in words)]


def test_the_glossary_is_read() -> None:
    assert TERMS["microcompact"] == ["微压缩"] and len(TERMS) >= 10


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.package)
def test_every_exercise_s_hints_name_the_guide_term(stage) -> None:
    hints = tomllib.loads((impl_root("solutions") / stage.package / "hints.toml")
                          .read_text(encoding="utf-8"))
    missing = {number: untranslated(entry["hints"]) for number, entry in hints.items()}
    assert not {k: v for k, v in missing.items() if v}


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.package)
def test_the_chinese_hints_use_the_guide_s_words(stage) -> None:
    """Where an exercise's English hints name a term, its Chinese hints use the guide's word."""
    hints = tomllib.loads((impl_root("solutions") / stage.package / "hints.toml")
                          .read_text(encoding="utf-8"))
    missing = {number: [term for term, words in TERMS.items()
                        if mentions("\n".join(entry["hints"]), term)
                        and not any(w in "\n".join(entry["zh"]["hints"]) for w in words)]
               for number, entry in hints.items()}
    assert not {k: v for k, v in missing.items() if v}


def headings() -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                out += [(path.name, line) for line in "".join(cell["source"]).splitlines()
                        if line.startswith("#")]
    return out


def test_every_notebook_heading_names_the_guide_term() -> None:
    bad = [(name, line) for name, line in headings() if untranslated([line])]
    assert not bad


RIVALS = {"stub": ("存根",)}
"""Other Chinese words for a glossary term, used nowhere: one idea, one word (a learner who
meets 桩 in the README and 存根 in ``ctxlab grade`` would look for two things)."""


def chinese_texts() -> dict[str, str]:
    """Everything a Chinese reader reads: the Chinese READMEs and docs, the notebooks'
    Chinese twins, the hints, and the bench's own lines (``ctxlab grade`` in Chinese)."""
    paths = [ROOT / "README.zh-CN.md", *sorted((ROOT / "docs").glob("*.zh-CN.md")),
             *sorted((ROOT / "notebooks" / "zh-CN").glob("*.ipynb")),
             *(impl_root("solutions") / s.package / "hints.toml" for s in STAGES),
             *sorted((ROOT / "stages" / "ctxlab").rglob("*.py"))]
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in paths}


@pytest.mark.parametrize("term", sorted(RIVALS))
def test_one_chinese_word_for_each_term(term: str) -> None:
    assert term in TERMS, f"{term} is not in README.md's glossary"
    texts = chinese_texts()
    assert len(texts) >= 10 and any(TERMS[term][0] in text for text in texts.values())
    used = {name: rival for name, text in texts.items() for rival in RIVALS[term]
            if rival in text}
    assert not used, f"{term} is {TERMS[term][0]} (the glossary), not: {used}"
