"""The simulated agent: a stateless Responder that follows a scenario's plan (DESIGN §4).

Each answer depends only on the view, the scenario and the seed; the brain never knows which
stage, test or notebook is calling. Pitfalls therefore appear for honest reasons: a fact that
left the context makes it fetch again (§12.2), a constraint that left the context is broken
(§12.3), a free-form summary loses what a template would keep (§12.4), and tools offered to a
summarizer sometimes get called (§9.6).
"""

from __future__ import annotations

import random
from typing import Any

from ..scenarios import Scenario
from ..sim import ModelView, Reply
from . import probe, summary
from .plan import Action, decide, is_done, variant
from .request import SummaryRequest, find_request, parse
from .visible import Finder, Visible, scan

_SAYS = {
    "refetch": "Some details I need are no longer in view, so I am fetching them again.",
    "recover": "The full output was saved to a file; I am reading it back.",
}
_WHY = {
    "step": "the next planned step can be taken",
    "refetch": "a detail the next step needs is out of view",
    "recover": "an offloaded copy holds a detail the next step needs",
    "finish": "the final check shows success",
    "give-up": "the final check ran without showing success",
    "summary": "a summary of the conversation was requested",
    "no-tools": "the next step needs a tool and none is offered",
}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


class Brain:
    """The model behind the simulator for one scenario (implements ``Responder``).

    ``tool_instead_of_summary`` is the probability of calling a tool when asked to summarize
    while tools are offered and ``tool_choice`` is not ``none`` (§9.6).
    """

    def __init__(self, scenario: Scenario, *, seed: int = 0,
                 tool_instead_of_summary: float = 0.0) -> None:
        if not 0.0 <= tool_instead_of_summary <= 1.0:
            raise ValueError("tool_instead_of_summary must be a probability in [0, 1]")
        self.scenario = scenario
        self.seed = seed
        self.tool_instead_of_summary = tool_instead_of_summary
        self._finder = Finder(scenario)

    def respond(self, view: ModelView) -> Reply:
        """Answer one request: a summary when asked for one, else the plan's next action."""
        answers = probe.respond(self.scenario, self._finder, view)  # §12.5 probe questions
        if answers is not None:
            return Reply([_text(answers)])
        seen = scan(view, self._finder)
        request = find_request(view)
        action = decide(self.scenario, seen)
        if request is not None:
            if not action.calls:  # nothing left to do: it checks the result once more
                final = self.scenario.steps[-1]
                action = Action("step", (variant(final, seen),), final)
            rng = random.Random(f"{self.seed}:{view.digest}")
            offered = all(view.offers(call.tool) for call in action.calls)
            if not (offered and rng.random() < self.tool_instead_of_summary):
                return self._reply(view, seen, "summary",
                                   [_text(self._summary(seen, request))])
        if not action.calls:
            return self._reply(view, seen, action.kind, [_text(self._closing(seen, action))])
        missing = sorted({call.tool for call in action.calls if not view.offers(call.tool)})
        if missing:  # it never calls a tool the request did not offer
            offer = f"no {', '.join(missing)} tool" if view.tools_allowed else "no tools"
            return self._reply(view, seen, "no-tools", [_text(
                f"To continue I need to {summary.note(action.step)}, but this request offers "
                f"{offer}.")])
        said = _SAYS.get(action.kind) or self._announce(action)
        blocks = [_text(said)] + [call.block() for call in action.calls]
        return self._reply(view, seen, action.kind, blocks)

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

    def _closing(self, seen: Visible, action: Action) -> str:
        done = [s for s in self.scenario.steps if is_done(s, seen, self.scenario)]
        steps = "\n".join(f"- {summary.note(s)}" for s in done)
        if action.kind == "give-up":
            return ("I ran the final check and it still does not report success, so I am "
                    f"stopping here for your input. Steps taken:\n{steps}")
        shown = "; ".join(self.scenario.marker(f) for f in self.scenario.goal)
        return f"The task is done. Steps taken:\n{steps}\n\nThe final check reports: {shown}"

    def _reply(self, view: ModelView, seen: Visible, why: str,
               blocks: list[dict[str, Any]]) -> Reply:
        """``blocks``, after a thinking block when thinking is enabled."""
        if not view.thinking_enabled:
            return Reply(blocks)
        done = sum(is_done(s, seen, self.scenario) for s in self.scenario.steps)
        thought = (f"{done} of {len(self.scenario.steps)} planned steps show as done in what I "
                   f"can see, and {_WHY[why]}.")
        return Reply([{"type": "thinking", "thinking": thought}, *blocks])
