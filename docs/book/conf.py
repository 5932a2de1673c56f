"""Sphinx configuration of the workbook's book, one build per language (``python -m ctxlab.book``).

The builder stages each language's pages (``docs/book/sources.toml``) into a folder of its own
and runs Sphinx on it with ``CTXLAB_BOOK_LANG`` set; the notebooks are executed by MyST-NB and
cached per language (a rebuild with no input change executes nothing).
"""

import os
import posixpath
from pathlib import Path

from sphinx.search.zh import SearchChinese

LANG = os.environ.get("CTXLAB_BOOK_LANG", "en")
OTHER = {"en": "zh-CN", "zh": "en"}[LANG]
HERE = Path(__file__).resolve().parent

project = "Context Engineering Workbook" if LANG == "en" else "上下文工程练习册"
author = "the workbook's authors"
language = "en" if LANG == "en" else "zh_CN"
root_doc = "index"
extensions = ["myst_nb"]
templates_path = [str(HERE / "_templates")]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]

myst_enable_extensions = ["colon_fence", "html_image"]
myst_heading_anchors = 4  # the READMEs link to their own headings

nb_execution_mode = "cache"
nb_execution_cache_path = os.environ["CTXLAB_BOOK_CACHE"]
nb_execution_timeout = 300
nb_execution_raise_on_error = True  # a notebook that fails fails the book
nb_execution_show_tb = True
nb_ipywidgets_js = {}  # no widget scripts from the web: the site works offline
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None),
                              ("html", "application/vnd.jupyter.widget-state+json", None)]

html_theme = "sphinx_book_theme"
html_title = project
html_static_path: list[str] = []
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
html_sidebars = {"**": ["navbar-logo.html", "lang-switch.html", "search-button-field.html",
                        "sbt-sidebar-nav.html"]}
html_context = {"default_mode": "light"}  # the theme logs an error when no mode is set
html_theme_options = {"use_download_button": False, "use_fullscreen_button": False,
                      "show_prev_next": True}
html_search_language = "en" if LANG == "en" else "zh"  # Chinese words cut by jieba,
html_search_options = {"dict": os.environ.get("CTXLAB_BOOK_WORDS", "")}  # + the glossary's


def _twin(app, pagename, templatename, context, doctree) -> None:  # noqa: ANN001
    """Every page links to the same page of the other language's site."""
    here = posixpath.dirname(pagename)
    target = posixpath.join("..", OTHER, pagename + ".html")
    context["twin_url"] = posixpath.relpath(target, here or ".")


def _own_output_folder(app) -> None:  # noqa: ANN001
    """MyST-NB writes a notebook's images beside the site (``<outdir>/../jupyter_execute``); the
    two languages build at once into sibling folders, so each gets a folder of its own."""
    folder = str(Path(os.environ["CTXLAB_BOOK_CACHE"]).parent / "execute")
    app.env.mystnb_config = app.env.mystnb_config.copy(output_folder=folder)


class ChineseSearch(SearchChinese):
    """Sphinx 9.0's Chinese search names a script stemmer it does not ship (``ChineseStemmer``,
    a console error on every page); its Python side stems Latin words with the English
    stemmer, so the script side takes that one too."""

    language_name = "English"  # language_data.js: window.Stemmer = EnglishStemmer


def setup(app) -> None:  # noqa: ANN001
    app.add_search_language(ChineseSearch)
    app.connect("builder-inited", _own_output_folder, priority=900)
    app.connect("html-page-context", _twin)
