"""The simulated agent: a stateless Responder that follows a scenario's plan (DESIGN §4).

Each answer depends only on the view, the scenario and the seed; the brain never knows which
stage, test or notebook is calling. Pitfalls therefore appear for honest reasons: a fact that
left the context makes it fetch again (§12.2), a constraint that left the context is broken
(§12.3), a free-form summary loses what a template would keep (§12.4), and tools offered to a
summarizer sometimes get called (§9.6).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import random
from typing import Any

from ..scenarios import Scenario, Step
from ..sim import ModelView, Reply
from . import delegate, habits, parallel, probe, rereads, retrieval, summary, workset
from .calls import CallLog
from .habits import Behaviour
from .plan import Action, decide, group, is_done, variant, without_repeats
from .request import SummaryRequest, find_request, parse
from .visible import Finder, Visible, scan

_SAYS = {
    "refetch": "Some details I need are no longer in view, so I am fetching them again.",
    "refresh": "Before I change the file I need to see its current content, so I am reading it.",
    "recover": "The full output was saved to a file; I am reading it back.",
    "reread": "Before the next step I am looking at this file once more.",
}
_WHY = {
    "step": "the next planned step can be taken",
    "refetch": "a detail the next step needs is out of view",
    "recover": "an offloaded copy holds a detail the next step needs",
    "finish": "the final check shows success",
    "give-up": "the final check ran without showing success",
    "summary": "a summary of the conversation was requested",
    "no-tools": "the next step needs a tool and none is offered",
    "refresh": "the file to edit is not in view as it is now",
    "reread": "it is worth checking a file in view once more before the next step",
    "delegate": "the next part of the plan can go to a sub-agent",
}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


class Brain:
    """The model behind the simulator for one scenario (implements ``Responder``).

    ``tool_instead_of_summary`` is the probability of calling a tool when asked to summarize
    while tools are offered and ``tool_choice`` is not ``none`` (§9.6). ``behaviour`` (by name:
    ``note_rate``, ``reread_in_view_rate``, ``parallel_read``, … see ``habits.Behaviour``)
    override the calibrated defaults and the scenario's ``[behaviour]``. ``rot``: the retrieval
    model on or off for this brain (None: the process's ``--rot`` switch). ``misses`` logs
    each visible fact it did not find, for the telemetry (it never reads the log back).
    ``calls`` is its own record of the tool calls it made (``CallLog``): the recall draws and
    the reply lengths are keyed on it, not on the request's bytes, so every layer meets the
    same draws at the same point of a task.
    """

    def __init__(self, scenario: Scenario, *, seed: int = 0,
                 tool_instead_of_summary: float = 0.0, rot: bool | None = None,
                 **behaviour: float | None) -> None:
        if not 0.0 <= tool_instead_of_summary <= 1.0:
            raise ValueError("tool_instead_of_summary must be a probability in [0, 1]")
        self.scenario = scenario
        self.seed = seed
        self.tool_instead_of_summary = tool_instead_of_summary
        self.behaviour = Behaviour.of(scenario, **behaviour)
        self._finder = Finder(scenario)
        self.rot = rot
        self.misses: list[retrieval.Miss] = []
        self.changed: list[retrieval.Changed] = []  # files it saw change (a re-read, §10.2)
        self._noticed: set[retrieval.Changed] = set()  # each change is logged once
        self.calls = CallLog()  # its tool calls as it made them (the draws' keys, §4)
        self._parts: dict[str, Brain] = {}

    def respond(self, view: ModelView) -> Reply:
        """Answer one request: a summary when asked for one, else the plan's next action."""
        answers = probe.respond(self.scenario, self._finder, view)  # §12.5 probe questions
        if answers is not None:
            return Reply([_text(answers)])
        part = delegate.assignment(self.scenario, view)
        if part is not None:  # a sub-agent's prompt: it works on its part (§11)
            return self._part(part).respond(view)
        seen = delegate.credit(self.scenario, scan(view, self._finder))
        request = find_request(view)  # a summary seeks no fact: it draws nothing (§4)
        action = self._working_set(view, delegate.delegated(
            self.scenario, view, seen, self._decide(view, seen, seek=request is None)))
        if request is not None:
            if not action.calls:  # nothing left to do: it checks the result once more
                final = self.scenario.steps[-1]
                action = Action("step", (variant(final, seen),), final)
            rng = random.Random(f"{self.seed}:{view.digest}")
            offered = all(view.offers(call.tool) for call in action.calls)
            if not (offered and rng.random() < self.tool_instead_of_summary):
                return self._reply(view, seen, "summary",
                                   [_text(self._summary(seen, request))], pad=False)
        if not action.calls:
            return self._reply(view, seen, action.kind, [_text(self._closing(view, seen, action))])
        missing = sorted({call.tool for call in action.calls if not view.offers(call.tool)})
        if missing:  # it never calls a tool the request did not offer
            offer = f"no {', '.join(missing)} tool" if view.tools_allowed else "no tools"
            return self._reply(view, seen, "no-tools", [_text(
                f"To continue I need to {summary.note(action.step)}, but this request offers "
                f"{offer}.")])
        said = _SAYS.get(action.kind) or self._announce(action)
        blocks = [_text(said)] + [call.block() for call in action.calls]
        return self._reply(view, seen, action.kind, blocks)

    def _decide(self, view: ModelView, seen: Visible, *, seek: bool = True) -> Action:
        """The plan's next action, given the facts of its step that the agent finds (§4): a
        missed fact is treated as absent, so it is fetched again, each call of the fetch but
        one whose last result read as the one before (``nothing_new``): an unchanged file is
        not read a third time in a row; and no re-read of a file in view beyond what the habit
        owes (``rereads.bounded``). ``seek``: False when no fact is looked for (a summary
        request), so nothing is drawn."""
        action = decide(self.scenario, seen)
        if action.kind != "step" or action.step is None or not seek:
            return action
        steps = group(self.scenario.steps, self.scenario.index(action.step.id))
        needs = self._needs(steps)
        lost, changed = retrieval.look(view, self.seed, needs, on=self.rot, log=self.calls)
        self.changed += [c for c in changed if c not in self._noticed]
        self._noticed.update(changed)
        if lost:
            self.misses += lost
            gone = {needs[miss.fact][0] for miss in lost}
            fetch = decide(self.scenario, dataclasses.replace(seen, found=seen.found - gone))
            if not fetch.calls:
                return fetch
            rate = self.behaviour.reread_in_view_rate
            fresh = without_repeats(fetch, seen)  # a call whose last fetch read as the one
            if fresh is not None:  # before is not made again, nor a re-read beyond the rate
                fresh = rereads.bounded(fresh, seen, self.scenario, rate, self.seed)
            if fresh is not None:
                return fresh
            # each call brought back what was in view already, or would re-read a file in view
            # beyond the habit's rate: it goes on without the fact (a silent miss)
        rate = self.behaviour.reread_in_view_rate
        more = itertools.takewhile(  # a batch stops short of a step due a re-read
            lambda step: not rereads.due(self.scenario, step, rate, self.seed, seen),
            parallel.followers(
                self.scenario, action.step, seen, self.behaviour.parallel,
                f"{self.scenario.name}:{self.seed}", lambda step: not retrieval.look(
                    view, self.seed, self._needs([step]), on=self.rot, log=self.calls)[0]))
        again = rereads.reread(seen, action.step, self.scenario, rate, self.seed)
        if again is not None:
            return Action("reread", (again,), action.step)
        return Action("step", action.calls + tuple(variant(s, seen) for s in more), action.step)

    def _needs(self, steps: list[Step]) -> dict[str, tuple[str, str]]:
        """The facts ``steps`` need: name → (marker, kind of fact for the retrieval model)."""
        return {f: (self.scenario.marker(f),
                    retrieval.kind(self.scenario.marker(f), retrieval.seeking(s)))
                for s in steps for f in s.needs}

    def resumed(self, messages: list[dict[str, Any]]) -> None:
        """A client resumed its session: the calls it made before (every message it sent, as
        its journal kept them) are the ones this model made (``CallLog``)."""
        self.calls.replay(messages)

    def take_misses(self) -> list[retrieval.Miss]:
        """The misses logged since the last call (the runner files them under its turn)."""
        taken, self.misses = self.misses, []
        return taken

    def take_changed(self) -> list[retrieval.Changed]:
        """The files seen to change since the last call (the runner files them too)."""
        taken, self.changed = self.changed, []
        return taken

    def _part(self, part: Scenario) -> Brain:
        """The same model (every setting and habit of this one) on a part of the plan."""
        if part.name not in self._parts:
            model = copy.copy(self)
            model.scenario, model._finder, model._parts = part, Finder(part), {}
            model.calls = CallLog()  # a sub-agent's context: its own calls
            self._parts[part.name] = model
        return self._parts[part.name]

    def _working_set(self, view: ModelView, action: Action) -> Action:
        """Edits made from the copy of the file in view; a read first when there is none."""
        if action.kind != "step" or action.step is None:
            return action
        calls, reads = workset.before_edit(view, self.scenario, action.step, action.calls)
        if reads:
            return Action("refresh", tuple(reads), action.step)
        return Action(action.kind, calls, action.step)

    def summarize(self, view: ModelView, instructions: str | None) -> str:
        """Server-side compaction (R33): always a structured summary."""
        request = parse(instructions or "", default_sections=True)
        return summary.structured(self.scenario, scan(view, self._finder), request)

    def _summary(self, seen: Visible, request: SummaryRequest) -> str:
        if request.sections:
            body = summary.structured(self.scenario, seen, request)
        else:
            body = summary.free_form(self.scenario, seen)
        if request.analysis:
            return summary.analysis(self.scenario, seen) + "\n\n" + body
        return body

    def _announce(self, action: Action) -> str:
        assert action.step is not None
        if len(action.calls) > 1:
            return (f"Next I will {summary.note(action.step)}, together with "
                    f"{len(action.calls) - 1} more call(s) of the same kind in parallel.")
        return f"Next I will {summary.note(action.step)}."

    def _closing(self, view: ModelView, seen: Visible, action: Action) -> str:
        if delegate.is_part(self.scenario):  # a sub-agent ends with its report (§11.4)
            return delegate.report(self.scenario, seen, view, self._finder)
        done = [s for s in self.scenario.steps if is_done(s, seen, self.scenario)]
        steps = "\n".join(f"- {summary.note(s)}" for s in done)
        if action.kind == "give-up":
            return ("I ran the final check and it still does not report success, so I am "
                    f"stopping here for your input. Steps taken:\n{steps}")
        shown = "; ".join(self.scenario.marker(f) for f in self.scenario.goal)
        return f"The task is done. Steps taken:\n{steps}\n\nThe final check reports: {shown}"

    def _reply(self, view: ModelView, seen: Visible, why: str,
               blocks: list[dict[str, Any]], *, pad: bool = True) -> Reply:
        """``blocks`` after the working notes, a thinking block when thinking is enabled, and
        grown to a drawn output length (not for summaries: their length is their content)."""
        said = habits.notes(view, self.scenario, self._finder, self.behaviour, self.seed)
        if said and pad and blocks and blocks[0].get("type") == "text":
            blocks = [_text("\n".join(said) + "\n\n" + blocks[0]["text"]), *blocks[1:]]
        if view.thinking_enabled:
            done = sum(is_done(s, seen, self.scenario) for s in self.scenario.steps)
            thought = (f"{done} of {len(self.scenario.steps)} planned steps show as done in "
                       f"what I can see, and {_WHY[why]}.")
            blocks = [{"type": "thinking", "thinking": thought}, *blocks]
        if pad:  # keyed on how far the agent is, not on the bytes: the same under any layer
            rng = random.Random(f"{self.seed}:length:{why}:{len(self.calls.read(view))}")
            target = min(self.behaviour.output_tokens(rng), max(view.max_tokens // 2, 1))
            blocks = habits.pad(blocks, target, rng, view.thinking_enabled)
        return Reply(blocks)
