"""An exercise's docstring is its specification: the examples it gives hold on the reference
(``>>>`` lines, run as doctests), so the learner can trust them as written, and the graded
tests check the same rule (2.1: ``test_stops_when_drop_or_fewer_remain``)."""

from __future__ import annotations

import doctest
import importlib

import pytest

from ctxlab.workbook.layout import STAGES, impl_root


def modules() -> list[str]:
    return [f"{s.package}.{p.stem}" for s in STAGES
            for p in sorted((impl_root("solutions") / s.package).glob("*.py"))
            if ">>>" in p.read_text(encoding="utf-8")]


def test_the_naive_truncation_docstring_has_examples() -> None:
    assert "s2_truncate.truncate" in modules()


@pytest.mark.parametrize("name", modules())
def test_docstring_examples_hold_on_the_reference(name: str) -> None:
    module = importlib.import_module(name)
    tests = [t for t in doctest.DocTestFinder().find(module) if t.examples]
    assert tests
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
