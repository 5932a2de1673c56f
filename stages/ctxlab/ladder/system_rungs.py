"""The dead layer (guide §14 stage 5 step 3, §7.6, §12.8): acceptance must find it.

The rung runs acceptance's microcompact drill on the complete system and on a mis-wired one
(``keep_results=10000``: microcompact keeps every result, so it is reached and clears
nothing). Acceptance must pass the first and fail the second, naming the layer and the kind
of dead.
"""

from __future__ import annotations

from ..report import accept
from . import runs
from .core import Cell, Verdict, broken, holds, pitfall

DRILL = next(d for d in accept.DRILLS if d.layer == "microcompact")


def dead_layer(cell: Cell) -> Verdict:
    merged = {**DRILL.options, **cell.options}
    result = runs.get(Cell(cell.key, 5, merged), DRILL.scenario, model=accept.MODEL).result
    row = accept.row_of(DRILL, result, merged)
    figures = f"{row['triggers']} trigger(s), {row['freed_tokens']:,} tokens freed"
    if row["verdict"] == accept.FIRES:
        return holds(f"acceptance's {DRILL.layer} drill ({DRILL.scenario}): fires, {figures}")
    if row["verdict"] == accept.WIRED_WRONG:
        return pitfall(f"acceptance fails: {DRILL.layer} {row['verdict']} — its trigger was "
                       f"reached (a later layer ran) and it did nothing: {figures}")
    return broken(f"acceptance: {DRILL.layer} {row['verdict']}: the drill never reached it")
