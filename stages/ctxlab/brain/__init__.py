"""The simulated agent ("brain") behind the offline API (DESIGN §4): ``Brain(scenario)``.

``Brain``, ``client_for`` and ``simulator_for`` are imported when first asked for, so a module
that needs one part of the brain (``request``, which a replay's summarizer reads) does not
load the agent, its scenarios and its habits with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agent import Brain
    from .serving import client_for, simulator_for

__all__ = ["Brain", "client_for", "simulator_for"]
_HOME = {"Brain": ".agent", "client_for": ".serving", "simulator_for": ".serving"}


def __getattr__(name: str) -> Any:
    """``Brain``, ``client_for`` or ``simulator_for``, from its module (PEP 562)."""
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(_HOME[name], __name__), name)
    return value
