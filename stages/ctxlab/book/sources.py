"""The book's pages and how each source becomes a page of both sites (``docs/book/sources.toml``).

A page keeps one path in both languages, so a page's twin is the same path in the other site.
Links between sources become links between pages; a link to a file the book does not hold
(source code, a folder, a page that has no twin) keeps its words and loses its target, and
the links that point a reader to the other language are left to the site's language switch.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

LANGS = ("en", "zh")
FOLDER = {"en": "en", "zh": "zh-CN"}  # the site's folder for each language
ROOT = Path(__file__).resolve().parents[3]
LIST = ROOT / "docs" / "book" / "sources.toml"
_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)\)")


@dataclass(frozen=True)
class Page:
    page: str  # the path of the page in both sites, without suffix
    part: str
    sources: dict[str, str]  # language -> the source's path in the repository

    def suffix(self, lang: str) -> str:
        return PurePosixPath(self.sources[lang]).suffix


def pages(listing: Path = LIST) -> list[Page]:
    """The pages, in reading order, as the list gives them."""
    data = tomllib.loads(listing.read_text(encoding="utf-8"))
    return [Page(p["page"], p["part"], {lang: p[lang] for lang in LANGS}) for p in data["page"]]


def parts(listing: Path = LIST) -> dict[str, dict[str, str]]:
    """Each part's heading in each language."""
    return tomllib.loads(listing.read_text(encoding="utf-8"))["parts"]


def rewrite_links(text: str, source: str, lang: str, book: list[Page]) -> str:
    """Markdown links of ``source`` as links between the pages of the ``lang`` site."""
    by_source = {p.sources[lang]: p for p in book}
    other = {p.sources[o]: p for p in book for o in LANGS if o != lang}

    def link(match: re.Match[str]) -> str:
        text, target = match["text"], match["target"]
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return match[0]  # a web address or an anchor on this page
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(source), path))
        if resolved in by_source:
            page = by_source[resolved]  # from the site's root
            return f"[{text}](/{page.page}{page.suffix(lang)}{'#' + anchor if anchor else ''})"
        if resolved in other:
            return text  # the other language: the site's switch links every page to its twin
        return text  # a file the book does not hold: its words stay, the link goes

    return _LINK.sub(link, text)


def staged_text(page: Page, lang: str, book: list[Page], root: Path = ROOT) -> str:
    """The page's source as the ``lang`` site holds it: its links rewritten."""
    source = page.sources[lang]
    raw = (root / source).read_text(encoding="utf-8")
    if page.suffix(lang) != ".ipynb":
        return rewrite_links(raw, source, lang, book)
    nb = json.loads(raw)
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
            cell["source"] = rewrite_links(text, source, lang, book)
    return json.dumps(nb, ensure_ascii=False, indent=1) + "\n"


def stage(folder: Path, lang: str, book: list[Page], toctree: str, root: Path = ROOT) -> int:
    """Write the ``lang`` site's sources into ``folder``; a file whose text is unchanged is
    left as it is (Sphinx rebuilds only what changed). The number of files written."""
    written = 0
    wanted = set()
    for page in book:
        text = staged_text(page, lang, book, root)
        if page.page == "index":
            text = text.rstrip("\n") + "\n\n" + toctree
        target = folder / (page.page + page.suffix(lang))
        wanted.add(target)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            written += 1
    for stale in [p for p in folder.rglob("*") if p.suffix in (".md", ".ipynb")]:
        if stale not in wanted:
            stale.unlink()
    return written


def toctree(lang: str, book: list[Page], headings: dict[str, dict[str, str]]) -> str:
    """The first page's table of contents, one toctree per part, in the list's order."""
    blocks = []
    for part, names in headings.items():
        entries = [p.page for p in book if p.part == part and p.page != "index"]
        if entries:
            lines = "\n".join(entries)
            blocks.append(f"```{{toctree}}\n:caption: {names[lang]}\n:maxdepth: 1\n\n{lines}\n```")
    return "\n\n".join(blocks) + "\n"


def glossary_words(readme_zh: Path = ROOT / "README.zh-CN.md") -> list[str]:
    """The guide's Chinese terms from the README's glossary (its 指南原词 column), as words for
    the Chinese search's segmenter: 微压缩 is one word to search for, not 微 and 压缩."""
    words: list[str] = []
    section = readme_zh.read_text(encoding="utf-8").split("## 术语对照", 1)[-1]
    body = section.split("|---", 1)[-1].split("\n", 1)[-1]  # the rows below the header
    for row in body.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if not row.startswith("|") or len(cells) < 3:
            break
        plain = re.sub(r"（[^）]*）|\([^)]*\)", "", cells[1])
        for word in re.split(r"[/、；;，,\s]+", plain):
            if len(word) >= 2 and all("\u4e00" <= ch <= "\u9fff" for ch in word):
                words.append(word)
    return sorted(set(words))
