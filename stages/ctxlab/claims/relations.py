"""The relations a lesson states about measured values, each with its English and Chinese
wording (DESIGN §8): a sentence that says "fell" or "cheaper" is true of the values it shows,
or the notebook stops with ``ClaimFailed``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class ClaimFailed(AssertionError):
    """A lesson's claim that its run does not bear out: the text must not be shown."""


@dataclass(frozen=True)
class Relation:
    """A relation kind: when it holds of ``a`` and ``b`` (within a tolerance), and how each
    language says it (``{a}``, ``{b}`` the values shown, ``{a_name}``, ``{b_name}``, ``{what}``)."""

    name: str
    holds: Callable[[Any, Any, float], bool]
    en: str
    zh: str


def _about(a: float, b: float, tolerance: float) -> bool:
    return abs(a - b) <= tolerance * max(abs(a), abs(b))


RELATIONS = {r.name: r for r in (
    Relation("less", lambda a, b, _: a < b, "{a_name} ({a}) is less than {b_name} ({b})",
             "{a_name}（{a}）比{b_name}（{b}）少"),
    Relation("greater", lambda a, b, _: a > b, "{a_name} ({a}) is more than {b_name} ({b})",
             "{a_name}（{a}）比{b_name}（{b}）多"),
    Relation("about_equal", _about, "{a_name} ({a}) is about the same as {b_name} ({b})",
             "{a_name}（{a}）与{b_name}（{b}）大致相同"),
    Relation("fell", lambda a, b, _: b < a, "{what} fell from {a} to {b}",
             "{what}从 {a} 降到 {b}"),
    Relation("rose", lambda a, b, _: b > a, "{what} rose from {a} to {b}",
             "{what}从 {a} 升到 {b}"),
    Relation("zero", lambda a, _b, _t: a == 0, "{what}: none ({a})", "{what}：没有（{a}）"),
    Relation("nonzero", lambda a, _b, _t: a != 0, "{what}: {a}", "{what}：{a}"),
    Relation("holds", lambda a, _b, _t: a is True, "{what}", "{what}"),
)}
"""``less``/``greater``: a < b, a > b; ``about_equal``: within ``tolerance`` of the larger
(a tenth unless told); ``fell``/``rose``: from ``a`` (before) to ``b`` (after); ``zero``,
``nonzero``: one value; ``holds``: a fact the run computed (``True``)."""
