"""Stub generation from solution regions (DESIGN §2, workbook mechanics)."""

from __future__ import annotations

import pytest

from ctxlab.workbook.generate import GenerationError, stub_source
from ctxlab.workbook.layout import stage

SOLUTION = '''"""A module."""

import math


def estimate(text: str) -> int:
    """Chars over four."""
    ### BEGIN SOLUTION 1.2
    return math.ceil(len(text) / 4)
    ### END SOLUTION


def helper() -> int:
    return 1
'''


def test_region_becomes_a_named_not_implemented_error() -> None:
    text, exercises = stub_source(SOLUTION, stage(1), "estimate.py")
    assert [(e.number, e.function) for e in exercises] == [("1.2", "estimate")]
    assert ('    raise NotImplementedError("Exercise 1.2 — estimate(): see '
            'notebooks/01_loop.ipynb")') in text
    assert "math.ceil" not in text
    assert '"""Chars over four."""' in text and "def helper() -> int:" in text
    namespace: dict[str, object] = {}
    exec(compile(text, "stub", "exec"), namespace)  # the stub is valid Python
    with pytest.raises(NotImplementedError, match="Exercise 1.2"):
        namespace["estimate"]("abcd")  # type: ignore[operator]


def test_file_without_regions_is_copied_unchanged() -> None:
    plain = "def f() -> int:\n    return 1\n"
    assert stub_source(plain, stage(1), "plain.py") == (plain, [])


@pytest.mark.parametrize("source, problem", [
    ("### BEGIN SOLUTION 1.1\nx = 1\n### END SOLUTION\n", "inside a function"),
    ("def f():\n    ### BEGIN SOLUTION 1.1\n    return 1\n", "never closed"),
    ("def f():\n    return 1\n    ### END SOLUTION\n", "without BEGIN"),
])
def test_broken_markers_are_reported(source: str, problem: str) -> None:
    with pytest.raises(GenerationError, match=problem):
        stub_source(source, stage(1), "bad.py")
