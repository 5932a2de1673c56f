"""``make book``: stage both languages' pages and build their sites, in parallel (DESIGN §7).

Sphinx runs with ``-W -n --keep-going``: a warning fails the build. Each language keeps its own
doctrees and notebook cache under ``build/book/.state``, so a second build with no input change
stages nothing new, executes nothing and writes almost nothing. Scenario runs are shared
between the two languages' kernels (and their twins' identical cells) through
``ctxlab.runcache`` in ``build/book/.state/runs``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from ctxlab import runcache
from ctxlab.book.sources import FOLDER, LANGS, ROOT, glossary_words, pages, parts, stage, toctree
from ctxlab.claims.language import ENV as NOTEBOOK_LANGUAGE

OUT = ROOT / "build" / "book"
REDIRECT = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Context Engineering Workbook · 上下文工程练习册</title>
<meta http-equiv="refresh" content="0; url=en/index.html"></head>
<body><p><a href="en/index.html">English</a> · <a href="zh-CN/index.html">中文</a></p></body></html>
"""


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def command(lang: str, out: Path = OUT) -> tuple[list[str], dict[str, str]]:
    """The sphinx-build command of one language, and its environment."""
    state = out / ".state" / FOLDER[lang]
    env = dict(os.environ, CTXLAB_BOOK_LANG=lang, CTXLAB_BOOK_CACHE=str(state / "cache"),
               PYDEVD_DISABLE_FILE_VALIDATION="1", MPLBACKEND="Agg")
    env[runcache.ENV] = str(out / ".state" / "runs")
    env[NOTEBOOK_LANGUAGE] = lang  # the notebooks state their claims in the site's language
    if lang == "zh":
        env["CTXLAB_BOOK_WORDS"] = str(state / "words.txt")
    argv = [sys.executable, "-m", "sphinx", "-W", "-n", "--keep-going", "-q", "-b", "html",
            "-c", str(ROOT / "docs" / "book"), "-d", str(state / "doctrees"),
            str(state / "src"), str(out / FOLDER[lang])]
    return argv, env


def build(out: Path = OUT) -> float:
    """Build both sites into ``out``; the seconds it took. Raises SystemExit on a failure."""
    started = time.monotonic()
    book, headings = pages(), parts()
    (out / ".state" / "runs").mkdir(parents=True, exist_ok=True)
    running = []
    for lang in LANGS:
        src = out / ".state" / FOLDER[lang] / "src"
        written = stage(src, lang, book, toctree(lang, book, headings))
        words = "\n".join(f"{w} 100" for w in glossary_words()) + "\n"
        _write_if_changed(out / ".state" / FOLDER[lang] / "words.txt", words)
        print(f"book [{FOLDER[lang]}]: {len(book)} pages, {written} changed since the last build")
        argv, env = command(lang, out)
        running.append((lang, subprocess.Popen(argv, env=env, cwd=ROOT)))
    failed = [FOLDER[lang] for lang, proc in running if proc.wait() != 0]
    if failed:
        raise SystemExit(f"book: the {', '.join(failed)} site failed to build (warnings above)")
    (out / "index.html").write_text(REDIRECT, encoding="utf-8")
    return time.monotonic() - started


def main() -> int:
    seconds = build()
    print(f"book: built in {seconds:.0f} s; open {OUT / 'index.html'} in a browser")
    return 0
