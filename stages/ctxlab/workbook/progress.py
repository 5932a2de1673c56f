"""Which exercises have passed before, so a failing one reads as what it is (DESIGN §2):
FAILING, never passed yet (a first attempt), or REGRESSION, passed once and broken since.

``ctxlab grade`` and ``ctxlab watch`` add every exercise they find DONE to
``.ctxlab/passed.json``; ``ctxlab workbook reset N`` forgets stage N's (its stubs start again).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from .layout import repo_root


def _state_file() -> Path:
    return repo_root() / ".ctxlab" / "passed.json"


def passed() -> set[str]:
    """The exercises ("2.3") that some grade found DONE."""
    path = _state_file()
    return set(json.loads(path.read_text())) if path.exists() else set()


def remember(numbers: Iterable[str]) -> None:
    """Add these exercises to the ones that have passed."""
    known, new = passed(), set(numbers)
    if not new <= known:
        _store(known | new)


def forget(numbers: Iterable[str]) -> None:
    """A failure of these exercises is a first attempt again."""
    known, gone = passed(), set(numbers)
    if known & gone:
        _store(known - gone)


def _store(numbers: set[str]) -> None:
    path = _state_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(sorted(numbers, key=lambda n: tuple(map(int, n.split("."))))))
    tmp.replace(path)
