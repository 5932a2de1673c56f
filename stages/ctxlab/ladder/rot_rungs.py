"""The rung of §4: past the band, the model stops finding what is in view (context rot).

The retrieval model (``ctxlab.recall``) makes a fact in view harder to find the longer the
request (in tokens, whatever the window), so a stage that lets a request on the 200K window
climb past the band's lower edge (§4.6: about half the window, here 100K tokens) misses facts
it holds and fetches them again. The band is set as a share of the window and rot follows
length: on this one window they coincide (``docs/rot.md``). A miss is a seeded draw, so one
run proves little either way: a cell is judged on the long task at seeds ``SEEDS``, a pitfall
at the first seed with a miss past the edge, holds when no seed has one. A miss below the
edge (shorter requests lose facts too, less often, §4.1) is not this rung's: no band prevents
it, and the evidence shows them apart.
"""

from __future__ import annotations

from . import runs
from .context_rungs import LONG_TURNS, WINDOW_200K
from .core import Cell, Verdict, holds, pitfall
from .evidence import pct

EDGE = 0.50  # the band's lower edge, as a share of the window (§4.6)
SEEDS = (0, 1, 2)


def context_rot(cell: Cell) -> Verdict:
    peaks: list[float] = []
    below: list[float] = []
    for seed in SEEDS:
        summary = runs.get(cell, "long-task", model=WINDOW_200K, max_turns=LONG_TURNS,
                           seed=seed).result.summary
        past = [m for m in summary.misses if m["occupancy"] > EDGE]
        if past:
            first = past[0]
            return pitfall(f"seed {seed}, turn {first['turn']}: the fact {first['fact']!r} was "
                           f"in view at position {first['position']:.2f} of a request "
                           f"{pct(first['occupancy'])} full (past the band's {pct(EDGE)}) and "
                           f"not found; {len(past)} such miss(es) in that run")
        peaks.append(summary.peak_occupancy)
        below += [m["position"] for m in summary.misses]
    return holds(f"seeds {SEEDS[0]}–{SEEDS[-1]}: peak occupancy {pct(max(peaks))}, no fact "
                 f"missed past the band's {pct(EDGE)}"
                 + (f"; {len(below)} missed below it, at position(s) "
                    f"{', '.join(f'{p:.2f}' for p in below)} (no occupancy is immune, §4.1)"
                    if below else ""))
