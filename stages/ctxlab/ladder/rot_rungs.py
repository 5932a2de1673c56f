"""The rung of §4: past the band, the model stops finding what is in view (context rot).

The retrieval model (``ctxlab.recall``) makes a fact in view harder to find the longer the
request (in tokens, whatever the window), so a stage that lets a request on the 200K window
climb past the band's lower edge (§4.6: about half the window, here 100K tokens) misses facts
it holds and fetches them again. The band is set as a share of the window and rot follows
length: on this one window they coincide (``docs/rot.md``). A miss is a seeded draw, so a
cell is judged on the long task over ``paired.SEEDS`` against its partner cell
(``paired.sides``): the quantity is the misses past the edge in each run, the mechanism a
fact that was in view past the edge and not found. A miss below the edge (shorter requests
lose facts too, less often, §4.1) is not this rung's quantity; the evidence counts them apart.
"""

from __future__ import annotations

from typing import Any

from . import paired, runs
from .context_rungs import LONG_TURNS, WINDOW_200K
from .core import Cell, Verdict
from .evidence import pct

EDGE = 0.50  # the band's lower edge, as a share of the window (§4.6)
FIXED_IN = 5
SEEDS = paired.SEEDS  # the seeds the rung judges (notebook 08 names them)


def _misses(cell: Cell, seed: int) -> list[dict[str, Any]]:
    return runs.get(cell, "long-task", model=WINDOW_200K, max_turns=LONG_TURNS,
                    seed=seed).result.summary.misses


def _past(cell: Cell, seed: int) -> float:
    return sum(m["occupancy"] > EDGE for m in _misses(cell, seed))


def _seen(cell: Cell, seed: int) -> str | None:
    past = [m for m in _misses(cell, seed) if m["occupancy"] > EDGE]
    if not past:
        return None
    first = past[0]
    return (f"turn {first['turn']}, the fact {first['fact']!r} was in view at position "
            f"{first['position']:.2f} of a request {pct(first['occupancy'])} full and not found")


def context_rot(cell: Cell) -> Verdict:
    weak_side, partner = paired.sides(cell, FIXED_IN)
    verdict = paired.judge(cell, partner, weak_side=weak_side,
                           name=f"misses past {pct(EDGE)} of the window", quantity=_past,
                           mechanism=_seen)
    below = [sum(m["occupancy"] <= EDGE for m in _misses(cell, s)) for s in paired.SEEDS]
    return Verdict(verdict.status, f"{verdict.evidence}; misses below the edge at {cell.key}, "
                                   f"per seed: {' '.join(map(str, below))} (§4.1)")
