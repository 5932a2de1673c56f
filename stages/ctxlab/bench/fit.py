"""How a cost grows with the context size: a power law fitted by least squares (issue 9).

If a cost behaves like ``c · size^k``, then ``log(cost) = log(c) + k · log(size)``: the slope of
the least-squares line through the (log size, log cost) points is the exponent ``k``. A cost
that does not depend on the size has ``k = 0``; one that re-reads the whole context has
``k = 1`` — per turn, which makes the session quadratic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def exponent(sizes: Sequence[float], costs: Sequence[float]) -> float | None:
    """Slope of log(cost) against log(size); None without two distinct positive sizes."""
    points = [(math.log(s), math.log(c)) for s, c in zip(sizes, costs, strict=True)
              if s > 0 and c > 0]
    if len({x for x, _ in points}) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def line(sizes: Sequence[float], costs: Sequence[float]) -> tuple[float, float] | None:
    """Least-squares ``cost = fixed + slope · size``: what a turn pays anyway, and per token.

    For the layer, ``slope`` is what each token already in the history adds to one turn — the
    part of the per-turn cost that grows with the session; ``fixed`` covers the new content.
    """
    if len(set(sizes)) < 2:
        return None
    mean_x = sum(sizes) / len(sizes)
    mean_y = sum(costs) / len(costs)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(sizes, costs, strict=True)) / sum(
        (x - mean_x) ** 2 for x in sizes)
    return mean_y - slope * mean_x, slope
