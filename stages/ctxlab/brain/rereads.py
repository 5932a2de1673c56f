"""The in-view re-read habit of a real model (DESIGN §4 "habits": re-reads).

Real agents read again some files whose earlier read is still in the request: before an edit,
to check the text they are about to change, or to look at a file once more before the next
step. ``ctxlab calibrate`` measures it per read (``reread_in_view_rate``); the brain takes it
before a planned step with the chance ``per_step(rate, plan)``, so that about ``rate`` of the
run's reads are such re-reads whatever share of its plan reads files. The file is the one the
step edits, else one of the files read so far in view, drawn; a file it has already read
twice in view is not taken again (the habit checks, it does not loop: §12.2's run of three
is left to real losses). The draws are keyed on the seed and the step, never
on a layer: the habit fires the same whatever keeps the context, and it is drawn apart from
the retrieval model's misses (``retrieval``), whose fetches-again come on top of it.
"""

from __future__ import annotations

import random
from collections import Counter

from ..scenarios import Call, Scenario, Step
from .visible import Visible


def per_step(rate: float, scenario: Scenario) -> float:
    """The chance per planned step that makes ``rate`` of all reads re-reads: with R reads
    among the plan's S steps, k re-reads out of R + k reads is ``rate`` when
    k = rate · R / (1 - rate), spread over the S steps."""
    reads = sum(step.call.tool == "read_file" for step in scenario.steps)
    return min(1.0, rate / (1.0 - rate) * reads / max(len(scenario.steps), 1))


def reread(seen: Visible, step: Step, scenario: Scenario, rate: float, seed: str) -> Call | None:
    """The read to take before ``step`` out of habit, or None."""
    rng = random.Random(f"{seed}:reread:{step.id}")
    if rng.random() >= per_step(rate, scenario):
        return None
    read = Counter(c.input["path"] for _, c in seen.calls
                   if c.tool == "read_file" and isinstance(c.input.get("path"), str)
                   and not c.input["path"].startswith(".task_outputs/"))
    if not read:
        return None
    path = step.call.input.get("path") if step.call.tool == "edit_file" else None
    if path not in read:
        path = list(read)[int(rng.random() * len(read))]
    call = Call("read_file", {"path": path})
    if read[path] >= 2 or seen.last_call == call:  # checked already, or it has just looked
        return None
    return call
