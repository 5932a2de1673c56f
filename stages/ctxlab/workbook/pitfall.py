"""Pitfall tests (DESIGN §2, "the pitfall ladder").

A pitfall test states the property the *next* stage guarantees. On a stage that still has the
weakness it must fail with ``PitfallObserved`` — raised by ``expect()`` when the property does
not hold — and nothing else: a stub's ``NotImplementedError`` stays a plain failure, and a
pitfall that stops happening is an XPASS, which fails the run (strict).
"""

from __future__ import annotations


class PitfallObserved(AssertionError):
    """The weakness a pitfall test looks for was seen."""


def expect(holds: bool, weakness: str) -> None:
    """Raise ``PitfallObserved(weakness)`` unless the property ``holds``."""
    if not holds:
        raise PitfallObserved(weakness)
