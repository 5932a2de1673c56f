"""Lessons computed from their runs (DESIGN §8): one way to state a measured figure or a
comparison in a notebook, rendered in the notebook's language and asserted.

    print(claims.fell(("cache read share", "缓存读取占比"), 0.41, 0.20, fmt="{:.0%}"))

prints "cache read share fell from 41% to 20%" in an English notebook and "缓存读取占比从 41%
降到 20%" in its Chinese twin, and raises ``ClaimFailed`` if 0.20 is not below 0.41: a claim
never rewords itself to fit the run. A text is one string or an ``(english, chinese)`` pair;
``en=``/``zh=`` templates replace a relation's own wording, with ``{a}``, ``{b}`` (the values,
formatted by ``fmt``), ``{a_name}``, ``{b_name}``, ``{what}`` and any other named value
(pairs picked by language too). ``say`` renders a computed sentence that compares nothing.
The language is the notebook folder's (``claims.language``).
"""

from __future__ import annotations

from typing import Any

from .language import language
from .relations import RELATIONS, ClaimFailed

__all__ = ["ClaimFailed", "about_equal", "fell", "greater", "holds", "language", "less",
           "nonzero", "rose", "say", "zero"]

Text = str | tuple[str, str]  # the same in both languages, or (english, chinese)


def pick(text: Any, lang: str) -> Any:
    """The text in ``lang`` (an ``(english, chinese)`` pair), anything else as it is."""
    if isinstance(text, tuple) and len(text) == 2 and all(isinstance(t, str) for t in text):
        return text[1] if lang == "zh" else text[0]
    return text


def say(en: str, zh: str, **values: Any) -> str:
    """A computed sentence in the notebook's language: values shown, no relation stated."""
    lang = language()
    return (zh if lang == "zh" else en).format(**{k: pick(v, lang) for k, v in values.items()})


def claim(kind: str, a: Any, b: Any = None, /, *, what: Text = "", a_name: Text = "",
          b_name: Text = "", fmt: str = "{}", tolerance: float = 0.1, en: str | None = None,
          zh: str | None = None, **values: Any) -> str:
    """The sentence stating relation ``kind`` of ``a`` (and ``b``), in the notebook's
    language; ``ClaimFailed`` when the relation does not hold of the values."""
    relation = RELATIONS[kind]

    def render(lang: str) -> str:
        fields = {k: pick(v, lang) for k, v in values.items()}
        fields.update(what=pick(what, lang).format(**fields), a_name=pick(a_name, lang),
                      b_name=pick(b_name, lang), a=fmt.format(a),
                      b="" if b is None else fmt.format(b))
        template = (zh if lang == "zh" else en) or getattr(relation, lang)
        return template.format(**fields)

    if not relation.holds(a, b, tolerance):
        raise ClaimFailed(f"{kind}({a!r}, {b!r}) does not hold: the run does not bear out "
                          f"{render('en')!r}")
    return render(language())


def less(a_name: Text, a: Any, b_name: Text, b: Any, **kw: Any) -> str:
    """``a < b``: "A (a) is less than B (b)"."""
    return claim("less", a, b, a_name=a_name, b_name=b_name, **kw)


def greater(a_name: Text, a: Any, b_name: Text, b: Any, **kw: Any) -> str:
    """``a > b``: "A (a) is more than B (b)"."""
    return claim("greater", a, b, a_name=a_name, b_name=b_name, **kw)


def about_equal(a_name: Text, a: Any, b_name: Text, b: Any, **kw: Any) -> str:
    """``a`` within ``tolerance`` (a tenth) of ``b``: "A (a) is about the same as B (b)"."""
    return claim("about_equal", a, b, a_name=a_name, b_name=b_name, **kw)


def fell(what: Text, before: Any, after: Any, **kw: Any) -> str:
    """``after < before``: "X fell from before to after"."""
    return claim("fell", before, after, what=what, **kw)


def rose(what: Text, before: Any, after: Any, **kw: Any) -> str:
    """``after > before``: "X rose from before to after"."""
    return claim("rose", before, after, what=what, **kw)


def zero(what: Text, value: Any, **kw: Any) -> str:
    """``value == 0``: "X: none (0)"."""
    return claim("zero", value, what=what, **kw)


def nonzero(what: Text, value: Any, **kw: Any) -> str:
    """``value != 0``: "X: value"."""
    return claim("nonzero", value, what=what, **kw)


def holds(what: Text, fact: bool, **kw: Any) -> str:
    """``fact is True``: the sentence ``what`` (a fact the run computed, e.g. a rule quoted)."""
    return claim("holds", fact, what=what, **kw)
