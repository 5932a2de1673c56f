"""Which language a notebook's computed sentences are written in (DESIGN §8).

A notebook is in the language of its folder: Jupyter starts a notebook's kernel in the folder
that holds it, so a kernel whose working directory is ``notebooks/zh-CN`` runs a Chinese twin
and answers in Chinese, one in ``notebooks`` answers in English (``tests/notebooks`` runs each
notebook in its own folder too). Anywhere else (a script, a kernel started elsewhere) the
learner's language decides, as for the rest of the bench: ``CTXLAB_LANG``, then the locale
(``ctxlab.workbook.lang``). A builder that runs a notebook away from its folder (the book,
``make book``) names the notebook's language in ``CTXLAB_NOTEBOOK_LANG``, which comes first.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..workbook.lang import CHINESE, ENGLISH
from ..workbook.lang import language as learners_language

FOLDERS = {"zh-CN": CHINESE, "notebooks": ENGLISH}  # the notebook folders and their language
ENV = "CTXLAB_NOTEBOOK_LANG"  # set by a builder that runs notebooks elsewhere (the book)


def language(folder: Path | None = None) -> str:
    """``"zh"`` or ``"en"``: from the notebook's folder (the working directory), else the
    learner's language."""
    named = os.environ.get(ENV)
    if named in (CHINESE, ENGLISH):
        return named
    name = (folder or Path.cwd()).name
    return FOLDERS.get(name) or learners_language()
