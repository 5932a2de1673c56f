"""The in-view re-read habit of a real model (DESIGN §4 "habits": re-reads).

Real agents read again some files whose earlier read is still in the request: before an edit,
to check the text they are about to change, or to look at a file once more before the next
step. ``ctxlab calibrate`` measures it per read (``reread_in_view_rate``, per session).

``calibrate`` measures the habit as re-reads over all reads, per session: a session of R
planned reads and k re-reads shows k / (R + k). The brain owes re-reads at the pace
``per_read(rate, R)`` per planned read, the pace whose count, rounded up or down at random as
systematic sampling does, shows ``rate`` on average in a session of R reads (one re-read
among two reads shows 0.5, so a session of one read must take it with the chance 2·rate,
not rate/(1-rate)). After the plan's first j steps it owes ``floor(pace · reads among them
+ phase)``, spread evenly over the plan's reads, so a session's count is its share to within
one, whatever the plan's mix of reads and commands. Each run seed is a session with its own
phase, the phases of a scenario's seeds stratified as the working notes' are
(``habits.noted``).

The re-reads it owes are re-reads in view of any cause: the measured rate is the total of a
real agent's re-checks and of its lapses, so a fact the retrieval model missed
(``retrieval``), fetched again from a file still in view, is one of them (``made``: the
re-reads the request shows, as ``calibrate`` counts them, a write in between ending one, an
errored read no read). The rate bounds them all (``bounded``): a miss chooses which file is
read again and when, the rate how many. A miss when nothing is owed is not fetched again from
the file in view: the agent goes on without the fact, as NoLiMa's models answer without the
needle rather than ask for the text again (a miss is silent; the run still records it).
A step is *due* a re-read while the plan's reads before the step before it owe more than the
request shows (a read is not checked again at once): it is taken before that step, and a
batch of parallel calls stops short of it (``agent``).

The file is the one the step edits, else one of the files read so far in view and not written
since, drawn; a file it has already read twice since its last write is not taken again (the
habit checks, it does not loop: §12.2's run of three is left to real losses). Everything is
keyed on the seed and the plan, and on what the request shows.
"""

from __future__ import annotations

import math
import random
from collections import Counter

from ..kinds import WRITE, kind_of
from ..scenarios import Call, Scenario, Step
from .habits import GOLDEN
from .plan import Action, keeping
from .visible import Visible


def shown(owed: float, reads: int) -> float:
    """The average share of re-reads among all reads of a session of ``reads`` planned reads
    that owes ``owed`` re-reads, rounded down or up at random to whole ones."""
    low = math.floor(owed)
    up = owed - low
    return (1 - up) * low / (reads + low) + up * (low + 1) / (reads + low + 1)


def per_read(rate: float, reads: int) -> float:
    """The re-reads owed per planned read that show ``rate`` on average in a session of
    ``reads`` planned reads (``shown`` rises with what is owed: found by bisection)."""
    if reads == 0 or rate == 0:
        return 0.0
    low, high = 0.0, rate / (1.0 - rate) * reads + 1.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if shown(middle, reads) < rate else (low, middle)
    return (low + high) / 2 / reads


def owed(scenario: Scenario, steps: int, rate: float, seed: int) -> int:
    """The re-reads owed once the plan's first ``steps`` steps are taken."""
    planned = [s.call.tool == "read_file" for s in scenario.steps]
    phase = (random.Random(f"{scenario.name}:rereads").random() + seed * GOLDEN) % 1.0
    pace = per_read(rate, sum(planned))
    return math.floor(pace * sum(planned[:max(steps, 0)]) + phase)


def _in_view(seen: Visible) -> tuple[int, Counter[str]]:
    """(the re-reads in view: reads of a file read before with no write to it in between;
    the files whose last read no write has followed, with their reads since the last write).
    A call counts once its result is in view and not an error, as ``calibrate`` counts."""
    current: Counter[str] = Counter()
    again = 0
    for cid, call in seen.calls:
        path = call.input.get("path")
        if not isinstance(path, str) or path.startswith(".task_outputs/"):
            continue
        if cid not in seen.results or seen.results[cid][1]:
            continue
        if call.tool == "read_file":
            again += path in current
            current[path] += 1
        elif kind_of(call.tool) == WRITE:
            current.pop(path, None)
    return again, current


def made(seen: Visible) -> int:
    """The re-reads in view (``calibrate``'s rule)."""
    return _in_view(seen)[0]


def due(scenario: Scenario, step: Step, rate: float, seed: int, seen: Visible) -> bool:
    """Whether a re-read is owed before ``step``."""
    return owed(scenario, scenario.index(step.id) - 1, rate, seed) > made(seen)


def bounded(action: Action, seen: Visible, scenario: Scenario, rate: float, seed: int
            ) -> Action | None:
    """``action`` (a fetch again for a missed fact) with no more re-reads of files in view
    than are owed before its step, or None when no call is left (the agent goes on)."""
    if action.step is None:
        return action
    room = owed(scenario, scenario.index(action.step.id) - 1, rate, seed) - made(seen)
    in_view = _in_view(seen)[1]
    calls = []
    for call in action.calls:
        if call.tool == "read_file" and call.input.get("path") in in_view:
            if room <= 0:
                continue
            room -= 1
        calls.append(call)
    return keeping(action, tuple(calls))


def reread(seen: Visible, step: Step, scenario: Scenario, rate: float, seed: int
           ) -> Call | None:
    """The read to take before ``step`` out of habit, or None."""
    if not due(scenario, step, rate, seed, seen):
        return None
    read = _in_view(seen)[1]  # a file written since its read would be a read, no re-read
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
