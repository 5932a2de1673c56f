"""The in-view re-read habit of a real model (DESIGN §4 "habits": re-reads).

Real agents read again some files whose earlier read is still in the request: before an edit,
to check the text they are about to change, or to look at a file once more before the next
step. ``ctxlab calibrate`` measures it per read (``reread_in_view_rate``, per session).

The brain owes ``rate / (1 - rate)`` re-reads per planned read, so that ``rate`` of the
session's reads are such re-reads: after the plan's first j steps it owes
``floor(rate / (1 - rate) · reads among them + phase)``. A re-read is taken before a step
when what it owes rose over the steps from two before it (a read is not checked again at
once; a batch of parallel calls counts as its steps): spread evenly over the plan's reads
(systematic sampling), so a session's count lands within one of its share whatever the
plan's mix of reads and commands, where a draw per step would leave short sessions to chance.
Each run seed is a session with its own phase, the phases of a scenario's seeds stratified
as the working notes' are (``habits.noted``).

The file is the one the step edits, else one of the files read so far in view, drawn; a file
it has already read twice in view is not taken again (the habit checks, it does not loop:
§12.2's run of three is left to real losses). Everything is keyed on the seed and the plan,
never on a layer: the habit fires the same whatever keeps the context, apart from the
retrieval model's misses (``retrieval``), whose fetches-again come on top of it.
"""

from __future__ import annotations

import math
import random
from collections import Counter

from ..scenarios import Call, Scenario, Step
from .habits import GOLDEN
from .visible import Visible


def owed(scenario: Scenario, steps: int, rate: float, seed: int) -> int:
    """The re-reads owed once the plan's first ``steps`` steps are taken."""
    reads = sum(s.call.tool == "read_file" for s in scenario.steps[:max(steps, 0)])
    phase = (random.Random(f"{scenario.name}:rereads").random() + seed * GOLDEN) % 1.0
    return math.floor(rate / (1.0 - rate) * reads + phase)


def reread(seen: Visible, step: Step, scenario: Scenario, rate: float, seed: int,
           span: int = 1) -> Call | None:
    """The read to take before ``step`` (leading ``span`` steps in one response) out of
    habit, or None."""
    first = scenario.index(step.id)
    if owed(scenario, first + span - 2, rate, seed) <= owed(scenario, first - 2, rate, seed):
        return None
    read = Counter(c.input["path"] for _, c in seen.calls
                   if c.tool == "read_file" and isinstance(c.input.get("path"), str)
                   and not c.input["path"].startswith(".task_outputs/"))
    if not read:
        return None
    rng = random.Random(f"{scenario.name}:{seed}:reread:{step.id}")
    path = step.call.input.get("path") if step.call.tool == "edit_file" else None
    if path not in read:
        path = list(read)[int(rng.random() * len(read))]
    call = Call("read_file", {"path": path})
    if read[path] >= 2 or seen.last_call == call:  # checked already, or it has just looked
        return None
    return call
