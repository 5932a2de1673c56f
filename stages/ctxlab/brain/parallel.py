"""Parallel tool calls as a real agent makes them (DESIGN §4 "habits"; guide §2.4).

Real sessions put several tool calls in one response when the calls do not depend on each
other: the files a task names read at once, a search beside a read. ``ctxlab calibrate``
measures, per session, the calls per calling response by the kind of the first call
(``parallel_read``, ``parallel_search``, ``parallel_run``; ``habits``). The brain
takes a planned step together with the steps right after it while each of them:

- is independent of the batch: it needs no fact an earlier member yields, touches no file an
  earlier member writes, writes no file an earlier member reads, and no user message or rule
  is due after an earlier member (the agent cannot act on what it has not been told yet);
- has its needs visible and found now (``retrieval``), is not the plan's final check, tempts
  no constraint and belongs to no explicit parallel group (a scenario's groups go as written);
- is not a write (an edit must see the file's current content first, ``workset``) and is
  not handed to a sub-agent (``delegate``).

A write or a step of a scenario's parallel group leads no batch of its own.

How many it takes is drawn, keyed on the seed and the step (never on a layer): each further
eligible step joins with the chance ``continuation(mean)``, the one that makes a response
whose calls are unbounded hold ``mean`` calls on average (a geometric count), ``mean`` being
the measured figure for the kind of the step's call.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from ..kinds import READ, RUN, SEARCH, WRITE, file_of, kind_of
from ..scenarios import Scenario, Step
from .visible import Visible

Found = Callable[[Step], bool]
"""Whether the agent finds every fact a step needs in the request (the retrieval model)."""


def continuation(mean: float) -> float:
    """The chance of one more call that gives a geometric count of calls this ``mean``."""
    return max(0.0, 1.0 - 1.0 / mean) if mean > 0 else 0.0


def _due(scenario: Scenario) -> set[str]:
    """Steps after which a user message or a rule arrives."""
    return {m.after for m in scenario.messages if m.after is not None} | {
        c.after for c in scenario.constraints if c.after is not None}


def _files(step: Step) -> set[str]:
    return {f for c in step.calls if (f := file_of(c.tool, c.input)) is not None}


def _eligible(scenario: Scenario, step: Step, batch: list[Step], seen: Visible,
              found: Found) -> bool:
    if (step.parallel is not None or step.tempts is not None or step.repeats
            or step.delegate is not None or step is scenario.steps[-1]
            or kind_of(step.call.tool) in (WRITE, None)):
        return False
    due = _due(scenario)
    yielded = {f for s in batch for f in s.yields}
    written = {f for s in batch if kind_of(s.call.tool) == WRITE for f in _files(s)}
    if any(s.id in due for s in batch) or yielded & set(step.needs) or written & _files(step):
        return False
    if not all(seen.sees(scenario.marker(f)) for f in step.needs):
        return False
    return not step.needs or found(step)


def followers(scenario: Scenario, lead: Step, seen: Visible, means: Mapping[str, float],
              seed: str, found: Found) -> list[Step]:
    """The steps after ``lead`` the agent calls in the same response (maybe none)."""
    kind = kind_of(lead.call.tool)
    if lead.parallel is not None or lead.delegate is not None or kind not in (READ, SEARCH, RUN):
        return []
    chance = continuation(means[kind])
    rng = random.Random(f"{seed}:parallel:{lead.id}")
    batch = [lead]
    for step in scenario.steps[scenario.index(lead.id) + 1:]:
        if rng.random() >= chance or not _eligible(scenario, step, batch, seen, found):
            break
        batch.append(step)
    return batch[1:]
