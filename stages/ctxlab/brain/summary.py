"""Writing a summary of what is visible: structured per template, or free-form prose (§12.4).

With a template, every section is filled from the visible context: the goal (the task text),
the files with the facts they showed, errors and their fixes, every user message verbatim
(quoted in ``<user-message>`` tags, so a later summary can carry them over), pending work, the
current and the next step. Without one, the result is a short fluent paragraph that keeps the
goal and the last action but no paths, facts or constraints: the loss §12.4 warns about.
"""

from __future__ import annotations

import re

from ..scenarios import TOOL_FIELDS, Call, Scenario, Step
from .plan import furthest, goal_visible, is_done, pending
from .request import Section, SummaryRequest
from .visible import Visible

_QUOTED = re.compile(r"<user-message>\n(.*?)\n</user-message>", re.S)
_FILE = re.compile(r"/|\.\w{1,5}$")
MAX_QUOTE = 4_000
"""Longer user texts (pasted files, rebuilt attachments) are quoted by their head only."""
_ACTIONS = {"read_file": "reading one of the project files",
            "run_command": "running a command to check the state of the code",
            "edit_file": "changing the code", "write_file": "writing a file",
            "search_docs": "looking something up in the documentation"}


def user_messages(seen: Visible, request_text: str | None) -> list[str]:
    """Every visible user message, oldest first; summaries contribute the ones they quote."""
    found: list[str] = []
    for summary in seen.summaries:
        found += _QUOTED.findall(summary)
    for text in seen.user_texts:
        if text == request_text:
            continue
        quoted = _QUOTED.findall(text)
        found += quoted if quoted else [_clip(text)]
    return list(dict.fromkeys(found))


def _clip(text: str) -> str:
    if len(text) <= MAX_QUOTE:
        return text
    return f"{text[:MAX_QUOTE // 2]}\n[… {len(text) - MAX_QUOTE // 2} more characters not quoted]"


def note(step: Step) -> str:
    """A plain description of a step, never containing its marks."""
    if step.note:
        return step.note
    call = step.call
    verbs = {"read_file": "read", "edit_file": "edit", "write_file": "write",
             "run_command": "run", "search_docs": "search the docs for"}
    return f"{verbs[call.tool]} `{call.target}`"


def taken(step: Step, seen: Visible) -> Call:
    """The variant of a done step that the visible history shows."""
    shown = [c for c in step.calls if seen.has_call(c) or seen.sees(c.mark)]
    return shown[-1] if shown else step.call


def files_of(call: Call) -> list[str]:
    """The files a call is about: its path, the file arguments of a command, or the docs."""
    if "path" in call.input:
        return [call.input["path"]]
    if call.tool == "search_docs":
        return ["docs/"]
    words = call.input.get("command", "").split()[1:]
    return [w for w in words if not w.startswith("-") and _FILE.search(w)]


def _label(call: Call) -> str:
    """A visible call in one line; calls to unknown tools or with odd inputs included."""
    field = TOOL_FIELDS.get(call.tool, ("",))[0]
    target = call.input.get(field)
    return f"{call.tool} {target}" if isinstance(target, str) else f"{call.tool} {call.input}"


def evidence(call: Call) -> str:
    """How a summary records a call so that it still shows the step as done."""
    if call.tool != "edit_file":
        return f"`{call.signature}`"
    return f"`{call.signature}`, new text:\n```\n{call.mark}\n```"


class Writer:
    """Fills the sections of one structured summary."""

    def __init__(self, scenario: Scenario, seen: Visible, request: SummaryRequest) -> None:
        self.scenario = scenario
        self.seen = seen
        self.request_text = request.text
        self.kinds = {section.kind for section in request.sections}
        self.done = [s for s in scenario.steps if is_done(s, seen, scenario)]

    def facts(self, step: Step) -> str:
        shown = [self.scenario.marker(f) for f in step.yields
                 if self.seen.sees(self.scenario.marker(f))]
        return "; learned: " + " | ".join(shown) if shown else ""

    def goal(self) -> str:
        task = self.scenario.task
        if any(task in t for t in self.seen.user_texts + self.seen.summaries):
            return task
        return f"(The original request is no longer in view.) The work is to {self.scenario.gist}."

    def files(self) -> str:
        calls = [(s, taken(s, self.seen)) for s in self.done]
        lines = [f"- {', '.join(files_of(call))}: {evidence(call)}{self.facts(s)}"
                 for s, call in calls if files_of(call)]
        return "\n".join(lines) or "- No files touched yet."

    def errors(self) -> str:
        lines = []
        for cid, call in self.seen.calls:
            if self.seen.failed(cid):
                first = (self.seen.results[cid][0].strip().splitlines() or [""])[0]
                lines.append(f"- `{_label(call)}` failed: {first}")
        fixes = [evidence(taken(s, self.seen)) for s in self.done
                 if s.call.tool in ("edit_file", "write_file")]
        if lines and fixes:
            lines.append("- Fixed by: " + "; ".join(fixes))
        return "\n".join(lines) or "- No errors so far."

    def user(self) -> str:
        quoted = user_messages(self.seen, self.request_text)
        return "\n".join(f"<user-message>\n{text}\n</user-message>" for text in quoted)

    def process(self) -> str:
        lines = [f"- {evidence(taken(s, self.seen))}{self.facts(s)}" for s in self.done]
        return "\n".join(lines) or "- Nothing done yet."

    def concepts(self) -> str:
        shown = [m for m in self.scenario.facts.values() if self.seen.sees(m)]
        return "\n".join(f"- {m}" for m in shown) or "- Nothing established yet."

    def constraints(self) -> str:
        rules = [c.text for c in self.scenario.constraints if c.id in self.seen.rules]
        return "\n".join(f"- {text}" for text in rules) or "- None stated."

    def pending(self) -> str:
        left = pending(self.scenario, self.seen)
        return "\n".join(f"- {note(s)}" for s in left) or "- Nothing: the plan is complete."

    def current(self) -> str:
        """The last completed step; all completed ones when no other section lists them."""
        index = furthest(self.scenario, self.seen)
        if index < 0:
            return "Just starting: nothing has been done yet."
        last = f"Last completed: {note(self.scenario.steps[index])}."
        if self.kinds & {"files", "process"}:
            return last
        done = ", ".join(f"`{taken(s, self.seen).signature}`" for s in self.done)
        return f"{last} Completed so far: {done}."

    def next(self) -> str:
        left = pending(self.scenario, self.seen)
        if not left and goal_visible(self.scenario, self.seen):
            return "Report the result to the user; the check passes."
        return f"Next: {note(left[0] if left else self.scenario.steps[-1])}."

    def section(self, section: Section) -> str:
        fill = getattr(self, section.kind, self.process)
        return f"{section.title}:\n{fill()}"


def structured(scenario: Scenario, seen: Visible, request: SummaryRequest) -> str:
    """A summary with one filled section per template slot, in the template's order."""
    writer = Writer(scenario, seen, request)
    body = "\n\n".join(f"{i}. {writer.section(s)}" for i, s in enumerate(request.sections, 1))
    return f"<summary>\n{body}\n</summary>" if request.tagged else body


def free_form(scenario: Scenario, seen: Visible) -> str:
    """A fluent paragraph: the goal and the last action, nothing concrete (§12.4)."""
    last = seen.last_call
    action = _ACTIONS.get(last.tool, "working on the task") if last else "getting started"
    return (f"We have been working together to {scenario.gist}. A good part of the project has "
            f"been looked at and the work is progressing well; most recently I was {action}. "
            "The plan is to carry on from there until the task is complete.")


def analysis(scenario: Scenario, seen: Visible) -> str:
    """The scratchpad a template may ask for before the summary."""
    done = sum(is_done(s, seen, scenario) for s in scenario.steps)
    return (f"<analysis>\nGoing through the conversation in order: {len(seen.user_texts)} user "
            f"text(s), {len(seen.calls)} tool call(s), {len(seen.results)} result(s). The aim "
            f"is to {scenario.gist}. {done} of {len(scenario.steps)} planned steps show as done; "
            "the summary must keep the files, the facts found, the user's words and what is "
            "left.\n</analysis>")
