"""The built book in a real browser (``make book-check``; DESIGN §7's bilingual site).

Runs when ``CTXLAB_BOOK`` names a built site (``make book-check`` builds it first); under CI a
missing browser or site is a failure, never a skip. Every page of both languages is opened from
``file://`` in headless Chromium; search is tried in both languages; pages broken on purpose in
a copy of the site must be caught; two screenshots of a notebook page with its chart are saved.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ctxlab.book.sources import FOLDER, LANGS, pages

SITE = os.environ.get("CTXLAB_BOOK")
if not SITE:
    pytest.skip("the book's browser test runs in `make book-check`", allow_module_level=True)
import site_check  # noqa: E402  (selenium: the book's extra, installed by make book-check)
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

SITE_DIR = Path(SITE)
SHOTS = SITE_DIR.parent / "book-screenshots"
SEARCHES = {"en": ("microcompact", "notebooks/05_pipeline.html"),
            "zh": ("微压缩", "notebooks/05_pipeline.html")}


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    chrome = site_check.browser(tmp_path_factory.mktemp("chromium"))
    yield chrome
    chrome.quit()


def test_the_site_has_every_page_of_the_list_in_both_languages() -> None:
    book = pages()
    for lang in LANGS:
        built = {p.relative_to(SITE_DIR / FOLDER[lang]).with_suffix("").as_posix()
                 for p in (SITE_DIR / FOLDER[lang]).rglob("*.html") if "_static" not in p.parts}
        built -= {"genindex", "search"}
        assert built == {p.page for p in book}, lang


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_opens_clean(driver, lang: str) -> None:  # noqa: ANN001
    found = {}
    for page in pages():
        path = SITE_DIR / FOLDER[lang] / f"{page.page}.html"
        issues = site_check.problems(driver, path, SITE_DIR)
        if issues:
            found[page.page] = issues
    assert not found, found


@pytest.mark.parametrize("lang", LANGS)
def test_the_language_switch_lands_on_the_twin(driver, lang: str) -> None:  # noqa: ANN001
    other = [o for o in LANGS if o != lang][0]
    page = SITE_DIR / FOLDER[lang] / "notebooks" / "04_summarize.html"
    driver.get(page.as_uri())
    driver.find_element("id", "twin-link").click()
    assert driver.current_url == (SITE_DIR / FOLDER[other] / "notebooks" /
                                  "04_summarize.html").as_uri()


@pytest.mark.parametrize("lang", LANGS)
def test_search_finds_the_page_that_teaches_the_term(driver, lang: str) -> None:  # noqa: ANN001
    term, expected = SEARCHES[lang]
    search = (SITE_DIR / FOLDER[lang] / "search.html").as_uri() + "?q=" + term
    driver.get(search)
    WebDriverWait(driver, 30).until(
        lambda d: d.find_elements("css selector", "#search-results li")
        or "did not match" in d.find_element("id", "search-results").text)
    hits = [a.get_attribute("href") for a in
            driver.find_elements("css selector", "#search-results li a")]
    assert any(h.split("?")[0].endswith(expected) for h in hits), hits


@pytest.mark.parametrize("lang", LANGS)
def test_a_notebook_page_shows_its_chart(driver, lang: str) -> None:  # noqa: ANN001
    """The screenshot is taken only once the chart has loaded; kept as CI output."""
    page = SITE_DIR / FOLDER[lang] / "notebooks" / "05_pipeline.html"
    driver.get(page.as_uri())
    charts = driver.find_elements("css selector", "div.cell_output img")
    assert charts, "no chart on the page"
    chart = charts[0]
    loaded = driver.execute_script("return arguments[0].naturalWidth", chart)
    assert loaded > 0
    driver.execute_script("arguments[0].scrollIntoView()", chart)
    SHOTS.mkdir(exist_ok=True)
    assert driver.save_screenshot(str(SHOTS / f"05_pipeline.{FOLDER[lang]}.png"))


def _broken(copy: Path, how: str) -> Path:
    """A copy of the site with one page broken on purpose; the page broken."""
    page = copy / "en" / "notebooks" / "05_pipeline.html"
    if how == "missing image":
        html = page.read_text(encoding="utf-8")
        image = re.search(r'<img[^>]+src="([^"]+\.png)"', html)[1]
        (page.parent / image).unlink()
    elif how == "broken link":
        html = page.read_text(encoding="utf-8")
        page.write_text(html.replace("</article>", '<a href="nowhere.html">x</a></article>', 1),
                        encoding="utf-8")
    else:  # missing twin
        (copy / "zh-CN" / "notebooks" / "05_pipeline.html").unlink()
    return page


@pytest.mark.parametrize("how", ["missing image", "broken link", "missing twin"])
def test_a_page_broken_on_purpose_is_caught(driver, tmp_path: Path, how: str) -> None:  # noqa: ANN001
    copy = tmp_path / "site"
    shutil.copytree(SITE_DIR, copy)
    page = _broken(copy, how)
    issues = site_check.problems(driver, page, copy)
    word = {"missing image": "image not loaded", "broken link": "broken link",
            "missing twin": "no twin page"}[how]
    assert any(i.startswith(word) for i in issues), issues


def test_a_rebuild_with_no_change_executes_nothing() -> None:
    """Runs last (pytest keeps the file's order): the pages checked above stay as they were."""
    cache = [p for p in (SITE_DIR / ".state").glob("*/cache/**/*") if p.is_file()]
    before = {p: p.stat().st_mtime_ns for p in cache}
    done = subprocess.run([sys.executable, "-m", "ctxlab.book"], capture_output=True, text=True,
                          check=True)
    assert done.stdout.count(", 0 changed since the last build") == len(LANGS), done.stdout
    assert {p: p.stat().st_mtime_ns for p in cache} == before, "a notebook was executed again"
