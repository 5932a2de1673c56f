"""ctxlab.claims (DESIGN §8): a claim states a relation of measured values in the notebook's
language and fails loudly, never rewording itself, when its values do not bear it out."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlab import claims
from ctxlab.claims.relations import RELATIONS

SHARE = ("cache read share", "缓存读取占比")
A, B = ("stage 5", "阶段 5"), ("stage 4", "阶段 4")


@pytest.fixture
def zh(monkeypatch, tmp_path: Path) -> None:
    (tmp_path / "zh-CN").mkdir()
    monkeypatch.chdir(tmp_path / "zh-CN")


@pytest.fixture
def en(monkeypatch, tmp_path: Path) -> None:
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")


# For each relation kind: values it holds of, and values that violate it.
CASES = {
    "less": (lambda v: claims.less(A, v[0], B, v[1]), (3, 5), [(5, 3), (4, 4)]),
    "greater": (lambda v: claims.greater(A, v[0], B, v[1]), (5, 3), [(3, 5), (4, 4)]),
    "about_equal": (lambda v: claims.about_equal(A, v[0], B, v[1]), (100, 95),
                    [(100, 80), (0.41, 0.2)]),
    "fell": (lambda v: claims.fell(SHARE, v[0], v[1]), (0.41, 0.20), [(0.41, 0.41), (0.2, 0.4)]),
    "rose": (lambda v: claims.rose(SHARE, v[0], v[1]), (0.2, 0.4), [(0.41, 0.41), (0.4, 0.2)]),
    "zero": (lambda v: claims.zero(SHARE, v[0]), (0,), [(1,), (0.01,)]),
    "nonzero": (lambda v: claims.nonzero(SHARE, v[0]), (143,), [(0,), (0.0,)]),
    "holds": (lambda v: claims.holds(("the rule is quoted", "规则被原样引用"), v[0]), (True,),
              [(False,), (1,)]),
}


def test_every_relation_kind_is_tested() -> None:
    assert set(CASES) == set(RELATIONS)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_violating_values_raise(kind: str, en: None) -> None:
    state, holding, violating = CASES[kind]
    assert state(holding)
    for values in violating:
        with pytest.raises(claims.ClaimFailed, match=kind):
            state(values)


def test_the_failure_quotes_the_english_sentence(zh: None) -> None:
    with pytest.raises(claims.ClaimFailed, match="cache read share fell from 41% to 41%"):
        claims.fell(SHARE, 0.41, 0.41, fmt="{:.0%}")


def test_rendered_in_the_folders_language(en: None, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CTXLAB_LANG", "zh")  # the folder wins over the learner's language
    assert claims.fell(SHARE, 0.41, 0.2, fmt="{:.0%}") == "cache read share fell from 41% to 20%"
    assert claims.less(A, 3, B, 5) == "stage 5 (3) is less than stage 4 (5)"
    monkeypatch.chdir(tmp_path)  # no notebook folder: the learner's language
    assert claims.fell(SHARE, 0.41, 0.2, fmt="{:.0%}") == "缓存读取占比从 41% 降到 20%"


def test_chinese_templates_and_named_values(zh: None) -> None:
    assert claims.less(A, 3, B, 5) == "阶段 5（3）比阶段 4（5）少"
    assert claims.zero(("breakpoints", "断点"), 0) == "断点：没有（0）"
    text = claims.nonzero("", 143, fmt="{:,}", en="{a} breakpoints in {n} requests",
                          zh="{n} 次请求里有 {a} 个断点", n=144)
    assert text == "144 次请求里有 143 个断点"
    assert claims.say("{x} of {y}", "{y} 中的 {x}", x=1, y=("all", "全部")) == "全部 中的 1"


def test_a_value_may_share_a_parameters_name(en: None) -> None:
    assert claims.zero("", 0, kind="invalid_request_error", en="{kind}: {a} errors",
                       zh="{kind}：{a} 个错误") == "invalid_request_error: 0 errors"
