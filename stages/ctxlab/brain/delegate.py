"""Sub-agents in the simulated model: handing a part of the plan to a child (§11; DESIGN §4).

The parent hands a part over only where the scenario marks its steps ``delegate`` and the
request offers the ``task`` tool; it writes the child's prompt from what it sees (the part's
steps by their notes, the facts they need that it can see). Parts whose needs are all in
view go out together, as parallel calls. A child recognises its part by the notes in its
prompt, works through it as any agent does, and ends with a report written from what it
saw: every finding in a structured report when its instructions ask for sections (§11.4 ①,
with the paths and commands used, ②); otherwise a short free-prose account that keeps the
facts it restated in its working notes and its last finding, and drops the rest — the lossy
hand-off of §11.4, the way a free-form summary loses details (§12.4). A parent that then
misses a fact takes the step again itself (a re-fetch) or goes on without it.
"""

from __future__ import annotations

from dataclasses import replace

from ..scenarios import Call, Scenario, Step
from ..sim import ModelView
from .plan import Action, is_done
from .request import parse
from .summary import note, taken
from .visible import Finder, Visible

TASK = "task"
"""The sub-agent tool's name (``ctxlab.subagents``)."""
HEADER = "Your part of a larger task"
REPORT_CHARS = 2_000
"""The length bound of a child's report: longer ones are cut, their tail lost."""


def parts(scenario: Scenario, start: int) -> list[list[Step]]:
    """The delegable parts from step ``start`` on, until a step that is not delegable."""
    found: list[list[Step]] = []
    for step in scenario.steps[start:]:
        if step.delegate is None:
            break
        if found and found[-1][-1].delegate == step.delegate:
            found[-1].append(step)
        else:
            found.append([step])
    return found


def _outside(part: list[Step]) -> list[str]:
    """Facts the part needs that no earlier step of the part yields."""
    inside: set[str] = set()
    needs: list[str] = []
    for step in part:
        needs += [f for f in step.needs if f not in inside and f not in needs]
        inside.update(step.yields)
    return needs


def delegated(scenario: Scenario, view: ModelView, seen: Visible, action: Action) -> Action:
    """``action``, or task calls for it and the parts after it whose needs are in view."""
    if action.kind != "step" or action.step is None or action.step.delegate is None \
            or not view.offers(TASK):
        return action
    calls: list[Call] = []
    for part in parts(scenario, scenario.index(action.step.id)):
        part = [s for s in part if not is_done(s, seen, scenario)]
        outside = _outside(part)
        if not part or not all(seen.sees(scenario.marker(f)) for f in outside):
            break
        calls.append(_task_call(scenario, part, outside))
    return Action("delegate", tuple(calls), action.step) if calls else action


def _task_call(scenario: Scenario, part: list[Step], facts: list[str]) -> Call:
    known = "".join(f"- {scenario.marker(f)}\n" for f in facts) or "- nothing yet\n"
    prompt = (f"{HEADER}: {scenario.gist}.\nSteps:\n"
              + "".join(f"- {note(s)}\n" for s in part)
              + f"What is known so far:\n{known}")
    tools = sorted({c.tool for s in part for c in s.calls} | {"read_file"})
    return Call(TASK, {"description": part[0].delegate or "", "prompt": prompt,
                       "tools": ",".join(tools)})


def assigned(scenario: Scenario, prompt: str) -> list[Step]:
    """The delegable steps a prompt names by their notes (none when it is no part's)."""
    if not prompt.startswith(HEADER):
        return []
    lines = set(prompt.splitlines())
    return [s for s in scenario.steps if s.delegate and f"- {note(s)}" in lines]


def credit(scenario: Scenario, seen: Visible) -> Visible:
    """A part whose task call came back counts as done: its steps' marks are credited (the
    facts are not: only what the report says is in view)."""
    for call_id, call in seen.calls:
        if call.tool == TASK and call_id in seen.results:
            for step in assigned(scenario, str(call.input.get("prompt", ""))):
                seen.found.update(step.marks)
    return seen


def assignment(scenario: Scenario, view: ModelView) -> Scenario | None:
    """The part of the plan a sub-agent's prompt gives it, as a plan of its own, or None."""
    first = view.messages[0] if view.messages else None
    if first is None or first["role"] != "user":
        return None
    texts = [b.get("text", "") for b in first["content"] if b.get("type") == "text"]
    steps = assigned(scenario, texts[0]) if texts else []
    if not steps:
        return None
    inside: set[str] = set()
    own: list[Step] = []
    for step in steps:
        own.append(replace(step, delegate=None,
                           needs=tuple(f for f in step.needs if f in inside)))
        inside.update(step.yields)
    return replace(scenario, name=f"{scenario.name}/{steps[0].delegate}", steps=tuple(own),
                   goal=steps[-1].yields, messages=())


def is_part(scenario: Scenario) -> bool:
    """Whether ``scenario`` is a part handed to a sub-agent (``assignment``)."""
    return "/" in scenario.name


def report(part: Scenario, seen: Visible, view: ModelView, finder: Finder) -> str:
    """The child's last answer: structured when its instructions ask for sections."""
    instructions = "\n".join(str(b.get("text", "")) for b in view.system)
    done = [s for s in part.steps if is_done(s, seen, part)]
    found = [part.marker(f) for s in done for f in s.yields if seen.sees(part.marker(f))]
    if parse(instructions).sections:
        text = _structured(part, seen, done, found)
    else:
        text = _free(part, view, finder, done, found)
    return text if len(text) <= REPORT_CHARS else text[:REPORT_CHARS - 4] + " […]"


def _structured(part: Scenario, seen: Visible, done: list[Step], found: list[str]) -> str:
    left = [s for s in part.steps if s not in done]
    lines = ["Findings:", *(f"- {marker}" for marker in found or ["nothing conclusive"]),
             "Where (files and commands):", *(f"- {taken(s, seen).signature}" for s in done),
             "Not checked:", *(f"- {note(s)}" for s in left),
             "- nothing outside the steps above",
             "Next step:", f"- the lead agent can go on with: {part.gist}"]
    return "\n".join(lines)


def _free(part: Scenario, view: ModelView, finder: Finder, done: list[Step],
          found: list[str]) -> str:
    noted: set[str] = set()
    for message in view.messages:
        if message["role"] == "assistant":
            for block in message["content"]:
                if block.get("type") == "text":
                    noted.update(finder.find(str(block["text"]))[0])
    last = {part.marker(f) for f in done[-1].yields} if done else set()
    kept = [marker for marker in found if marker in noted or marker in last]
    did = ", then ".join(note(s) for s in done) or "looked into it"
    said = " ".join(f"I found: {marker}." for marker in kept)
    return f"Done. I had to {did}. {said}".strip()
