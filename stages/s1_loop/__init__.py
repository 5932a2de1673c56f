"""Stage 1 — the raw agent loop with per-turn metrics (guide §14 stage 1, §1.2, §2, §9.5).

No context management at all: every request carries the whole history. What this stage adds
is *visibility*: each turn's message count, a local estimate of its size and the size the API
reports. Run it on the long task and watch it die with ``prompt is too long``.
"""

from .estimate import estimate_tokens
from .loop import run_loop
from .metrics import reported_tokens


def make_layer() -> None:
    """Stage 1 has no context layer: the loop sends everything it has."""
    return None


__all__ = ["estimate_tokens", "make_layer", "reported_tokens", "run_loop"]
