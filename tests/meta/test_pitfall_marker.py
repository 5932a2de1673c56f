"""The pitfall marker really is a strict xfail that accepts only PitfallObserved."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

TESTS = '''
import pytest
from ctxlab.workbook.pitfall import expect

@pytest.mark.parametrize("stage", [1])
@pytest.mark.pitfall(fixed_in=2, why="demo")
def test_observed(stage):
    expect(False, "weakness seen")

@pytest.mark.parametrize("stage", [1])
@pytest.mark.pitfall(fixed_in=2, why="demo")
def test_stopped_happening(stage):
    expect(True, "weakness seen")

@pytest.mark.parametrize("stage", [1])
@pytest.mark.pitfall(fixed_in=2, why="demo")
def test_stub(stage):
    raise NotImplementedError("Exercise 1.1")

@pytest.mark.parametrize("stage", [2])
@pytest.mark.pitfall(fixed_in=2, why="demo")
def test_fixed_stage_must_pass(stage):
    expect(False, "weakness seen")
'''


def test_pitfall_outcomes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(TESTS)
    result = pytester.runpytest("-p", "ctxlab.workbook.pytest_plugin", "-o", "xfail_strict=true")
    result.assert_outcomes(xfailed=1, failed=3)
    result.stdout.fnmatch_lines(["*test_stopped_happening*XPASS(strict)*"])


def test_xfail_strict_is_configured(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.getini("xfail_strict") is True
