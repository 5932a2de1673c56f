"""Where the agent is in its plan and what it does next, from what is visible (DESIGN §4).

The agent continues from the furthest step its visible history shows as done; it never starts
over just because early evidence scrolled away. A step whose needed facts are gone makes it
fetch them again with the very same call (thrashing, §12.2), unless a pointer to an offloaded
copy is visible: then it reads that file instead (recoverable externalization, §3.2, §7.4).
A tempting step breaks its constraint exactly when the constraint's text is not visible (§12.3).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..scenarios import Call, Scenario, Step
from .visible import Pointer, Visible


@dataclass(frozen=True)
class Action:
    """What to do now.

    ``kind`` is ``step`` (advance the plan), ``refetch`` (repeat a call to see a lost fact
    again), ``recover`` (read an offloaded copy), ``finish`` (the goal is visible) or
    ``give-up`` (the final check ran and did not show success).
    """

    kind: str
    calls: tuple[Call, ...] = ()
    step: Step | None = None


def is_done(step: Step, seen: Visible, scenario: Scenario) -> bool:
    """Whether visible evidence shows the step was taken."""
    if not step.repeats and any(seen.has_call(call) for call in step.calls):
        return True
    if any(seen.sees(mark) for mark in step.marks):
        return True
    return step.repeats and bool(step.yields) and all(
        seen.sees(scenario.marker(fact)) for fact in step.yields)


def furthest(scenario: Scenario, seen: Visible) -> int:
    """Index of the furthest step shown as done, or -1."""
    for i in range(len(scenario.steps) - 1, -1, -1):
        if is_done(scenario.steps[i], seen, scenario):
            return i
    return -1


def variant(step: Step, seen: Visible) -> Call:
    """The call for ``step``: the compliant one while its constraint is visible."""
    if step.comply is not None and step.tempts in seen.rules:
        return step.comply
    return step.call


def goal_visible(scenario: Scenario, seen: Visible) -> bool:
    """Whether every fact that shows success (the final check's output) is visible."""
    return all(seen.sees(scenario.marker(fact)) for fact in scenario.goal)


def decide(scenario: Scenario, seen: Visible) -> Action:
    """The next action for the visible state."""
    steps = scenario.steps
    start = furthest(scenario, seen) + 1
    if start >= len(steps) - 1 and goal_visible(scenario, seen):
        return Action("finish")
    if start >= len(steps) - 1 and seen.last_call in steps[-1].calls:
        return Action("give-up", step=steps[-1])
    target = group(steps, min(start, len(steps) - 1))
    fetches = _fetches(scenario, seen, target)
    if fetches:
        return fetching(tuple(fetches), target[0])
    return Action("step", tuple(variant(step, seen) for step in target), target[0])


def fetching(calls: tuple[Call, ...], step: Step) -> Action:
    """The action that makes ``calls`` to bring back what ``step`` needs: ``recover`` when one
    reads an offloaded copy, else ``refetch``."""
    recovering = any(call.target.startswith(".task_outputs/") for call in calls)
    return Action("recover" if recovering else "refetch", calls, step)


def nothing_new(seen: Visible, call: Call) -> bool:
    """Whether ``call`` was made again and its latest result in view reads as the one before:
    fetching it once more would bring nothing the agent does not hold (a missed fact is then
    not lost from view but not recognised: the call is left out of a fetch again, and when
    every call is, the agent goes on without it, §4)."""
    texts = [seen.results[cid][0] for cid, made in seen.calls
             if made.key == call.key and cid in seen.results]
    return len(texts) >= 2 and texts[-1] == texts[-2]


def without_repeats(action: Action, seen: Visible) -> Action | None:
    """``action`` without the calls that would bring nothing new (``nothing_new``), or None
    when none is left. In the calibration logs no re-read of a file with the same arguments
    follows a re-read of it with nothing changed in between (``retrieval``)."""
    return keeping(action, tuple(call for call in action.calls if not nothing_new(seen, call)))


def keeping(action: Action, calls: tuple[Call, ...]) -> Action | None:
    """``action`` with only ``calls`` (some of its own), or None when none is left; a fetch
    that loses its read of an offloaded copy is a plain ``refetch``."""
    if not calls:
        return None
    if action.kind in ("refetch", "recover") and action.step is not None:
        return fetching(calls, action.step)
    return replace(action, calls=calls)


def pending(scenario: Scenario, seen: Visible) -> list[Step]:
    """Steps after the furthest done one (what is left to do)."""
    return list(scenario.steps[furthest(scenario, seen) + 1:])


def group(steps: tuple[Step, ...], index: int) -> list[Step]:
    """The step at ``index`` and, for a parallel group, the group's following members."""
    group = steps[index].parallel
    taken = [steps[index]]
    for step in steps[index + 1:]:
        if group is None or step.parallel != group:
            break
        taken.append(step)
    return taken


def _fetches(scenario: Scenario, seen: Visible, target: list[Step]) -> list[Call]:
    """Calls that bring back the facts ``target`` needs and cannot see (deduplicated)."""
    first = scenario.index(target[0].id)
    calls: dict[str, Call] = {}
    missing = [f for step in target for f in step.needs if not seen.sees(scenario.marker(f))]
    for fact in dict.fromkeys(missing):
        provider = next(s for s in reversed(scenario.steps[:first]) if fact in s.yields)
        for call in _bring_back(scenario, seen, provider):
            calls.setdefault(call.key, call)
    return list(calls.values())


def _bring_back(scenario: Scenario, seen: Visible, provider: Step) -> list[Call]:
    """Read the offloaded copy of ``provider``'s result, or take ``provider`` again (after
    bringing back what it needs itself; providers come earlier, so this ends)."""
    pointer = _pointer(provider, seen)
    if pointer is not None:
        return [Call("read_file", {"path": pointer.path})]
    return _fetches(scenario, seen, [provider]) or [variant(provider, seen)]


def _pointer(provider: Step, seen: Visible) -> Pointer | None:
    """The latest visible pointer to a copy of ``provider``'s result, if any: its call in view
    is the provider's, or, when its call is out of view, the text around it names the
    provider's target. A pointer whose call is in view and is another call is not the
    provider's, whatever its kept lines mention (reading it would never bring the fact back)."""
    for pointer in reversed(seen.pointers):
        owner = seen.call_by_id(pointer.tool_use_id)
        if owner in provider.calls or (owner is None and any(
                c.target in pointer.context for c in provider.calls)):
            return pointer
    return None
