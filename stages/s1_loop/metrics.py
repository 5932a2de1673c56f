# Generated from solutions/s1_loop/metrics.py — your exercise: edit it.
# `ctxlab workbook reset 1` regenerates it (your version is backed up first).
"""Exercise 1.3 — how big was the request, according to the API? (guide §2, §14 stage 1 step 4)

With prompt caching, ``usage.input_tokens`` is only the part after the last cache breakpoint.
The size of the context is the sum of the three disjoint parts (API docs, "Tracking cache
performance"): cache reads, cache writes and uncached input.
"""

from __future__ import annotations

from typing import Any


def reported_tokens(usage: Any) -> int:
    """Total input tokens of one call from its ``usage`` (an SDK ``Usage`` object).

    ``cache_read_input_tokens`` and ``cache_creation_input_tokens`` may be ``None``.
    """
    raise NotImplementedError("Exercise 1.3 — reported_tokens(): see notebooks/01_loop.ipynb")
