"""The workbook as a bilingual book: a static site built offline from the notebooks and docs.

``python -m ctxlab.book`` (``make book``) stages the pages listed in ``docs/book/sources.toml``
and builds one Sphinx site per language with MyST-NB, the notebooks executed as the tests
execute them (their scenario runs shared through ``ctxlab.runcache``), into ``build/book``.
"""
