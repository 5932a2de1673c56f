"""``ctxlab hint N.M``: three hints per exercise, one more on each call.

Hints live beside the reference, in ``solutions/<stage>/hints.toml`` (one table per exercise
with a ``hints`` list of three strings, vague to specific, and a ``zh`` table holding the same
hints in Chinese, shown when the learner reads Chinese: ``lang.py``). How far a learner has got
is kept in ``.ctxlab/hints.json`` (one level per exercise, whatever the language) so the next
call shows the next level.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from .lang import ENGLISH, language
from .layout import STAGES, impl_root, repo_root

LEVELS = 3


def _state_file() -> Path:
    return repo_root() / ".ctxlab" / "hints.json"


def all_hints(lang: str = ENGLISH) -> dict[str, list[str]]:
    """Every exercise's hints in ``lang`` ("en", or a table's name such as "zh"), keyed by
    exercise number; an exercise with no table in ``lang`` keeps its English hints."""
    found: dict[str, list[str]] = {}
    for stage in STAGES:
        path = impl_root("solutions") / stage.package / "hints.toml"
        if path.exists():
            for number, table in tomllib.loads(path.read_text(encoding="utf-8")).items():
                found[number] = list(table.get(lang, table)["hints"])
    return found


def next_hint(exercise: str, lang: str | None = None) -> tuple[int, str]:
    """(level shown, text) for ``exercise`` in ``lang`` (default: the learner's language);
    advances the stored level up to the last one."""
    hints = all_hints(language() if lang is None else lang)
    if exercise not in hints:
        known = ", ".join(sorted(hints, key=lambda n: tuple(map(int, n.split("."))))) or "none"
        raise KeyError(f"no hints for exercise {exercise!r}; exercises with hints: {known}")
    state = _levels()
    level = min(state.get(exercise, 0) + 1, len(hints[exercise]))
    state[exercise] = level
    _store(state)
    return level, hints[exercise][level - 1]


def forget(exercises: set[str]) -> None:
    """The next ``ctxlab hint`` for these exercises shows the first hint again
    (``ctxlab workbook reset``)."""
    state = _levels()
    if state.keys() & exercises:
        _store({number: level for number, level in state.items() if number not in exercises})


def _levels() -> dict[str, int]:
    path = _state_file()
    return json.loads(path.read_text()) if path.exists() else {}


def _store(state: dict[str, int]) -> None:
    path = _state_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1))
    tmp.replace(path)
