"""The book's list of pages (docs/book/sources.toml) and how a source becomes a page; fast, in
``make test``. The site itself is built and opened in a browser by ``make book-check``."""

from __future__ import annotations

from pathlib import Path

from ctxlab.book.sources import LANGS, ROOT, glossary_words, pages, rewrite_links, stage, toctree


def test_every_listed_source_exists_in_both_languages_under_one_page_path() -> None:
    book = pages()
    assert len({p.page for p in book}) == len(book), "a page path is listed twice"
    for page in book:
        for lang in LANGS:
            assert (ROOT / page.sources[lang]).is_file(), (page.page, lang)
        assert page.sources["en"] != page.sources["zh"]


def test_the_book_holds_every_notebook_and_the_readers_docs() -> None:
    listed = {p.sources[lang] for p in pages() for lang in LANGS}
    notebooks = {str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").rglob("*.ipynb")
                 if ".ipynb_checkpoints" not in p.parts}
    assert notebooks <= listed, sorted(notebooks - listed)
    interview = {str(p.relative_to(ROOT)) for p in (ROOT / "docs" / "interview").rglob("*.md")}
    assert interview <= listed, sorted(interview - listed)
    assert {"README.md", "README.zh-CN.md", "docs/workshop.md", "docs/workshop.zh-CN.md",
            "docs/checklist.md", "docs/checklist.zh-CN.md"} <= listed


def test_links_between_sources_become_links_between_pages() -> None:
    book = pages()
    text = ("See [stage 4](stage-4.md#q6), [the guide](https://example.org), "
            "[the code](../../stages/ctxlab/cli.py), [中文](zh-CN/stage-1.md) and "
            "[the checklist](../checklist.md).")
    out = rewrite_links(text, "docs/interview/stage-1.md", "en", book)
    assert "[stage 4](/interview/stage-4.md#q6)" in out  # from the site's root
    assert "[the guide](https://example.org)" in out  # the web stays a link
    assert "the code," in out and "cli.py" not in out  # not in the book: words only
    assert "the code, 中文 and" in out  # the twin: the site's switch links it
    assert "[the checklist](/checklist.md)" in out  # docs/checklist.md is page "checklist"


def test_staging_again_with_no_change_writes_nothing(tmp_path: Path) -> None:
    book = pages()
    tree = toctree("zh", book, {"start": {"en": "Start", "zh": "开始"},
                               "notebooks": {"en": "N", "zh": "N"},
                               "kit": {"en": "K", "zh": "K"}})
    assert stage(tmp_path, "zh", book, tree) == len(book)
    assert stage(tmp_path, "zh", book, tree) == 0
    index = (tmp_path / "index.md").read_text(encoding="utf-8")
    assert "notebooks/05_pipeline" in index and ":caption: 开始" in index


def test_the_chinese_search_knows_the_glossarys_words() -> None:
    words = glossary_words()
    assert "微压缩" in words and "落盘" in words
    assert all("（" not in w and "§" not in w for w in words)
