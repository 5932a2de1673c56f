"""Answering probe questions from what is visible (guide §12.5, probe-based evaluation).

A probe request is a last user text that asks to answer questions and lists them, numbered
("Answer these questions …\n1. …\n2. …"). The agent answers each on its own numbered line,
from the conversation *without the request itself* (a question that names a call must not
count as evidence that the call was made), and says "not in view" when the context does not
tell. Four kinds of question are understood, in any wording that matches:

- fact recall — "What did `run_command python3 check.py` show?": the facts that call's step
  yields, those visible;
- decision trace — "Why did you `edit_file report_job.py`?": the visible facts the step needed,
  and the user's rule when the call is the compliant one and the rule is visible;
- forbidden actions — "Which actions did the user forbid?": every visible constraint;
- current step — "Which step was completed last, and what is next?": the furthest step shown
  as done and the one after it.

Like everything the agent says, the answer depends only on the request, the scenario and what
is visible: nothing tells it which context layer or summary produced the history.
"""

from __future__ import annotations

import dataclasses
import re

from ..scenarios import Call, Scenario, Step
from ..sim import ModelView
from .plan import furthest, pending
from .summary import note
from .visible import Finder, Visible, scan

NOT_IN_VIEW = "not in view"
_ASKS = re.compile(r"\banswer\b[^.\n]{0,60}\bquestions?\b|回答.{0,8}问题", re.I)
_ITEM = re.compile(r"^\s*(\d{1,2})[.)]\s+(\S.*)$", re.M)
_NAMED = re.compile(r"`([^`]+)`")
_FORBID = re.compile(r"forb[ia]d|not (allowed|permitted)|must not|prohibit|禁止", re.I)
_WHY = re.compile(r"\bwhy\b|为什么", re.I)
_FACT = re.compile(r"\bwhat did\b.*\b(show|return|print|say|reveal|tell)\b|"
                   r"\bwhat did you (learn|find)\b|显示了什么|结果是什么", re.I)
_CURRENT = re.compile(r"\bstep\b.*\b(last|now|next)\b|\bcompleted last\b|\bnext one\b|"
                      r"第几步|当前.{0,4}步", re.I)


def questions(view: ModelView) -> list[str] | None:
    """The numbered questions of a probe request in the last user message, or None."""
    if not view.messages or view.messages[-1]["role"] != "user":
        return None
    texts = [b["text"] for b in view.messages[-1]["content"] if b.get("type") == "text"]
    if not texts or not _ASKS.search(texts[-1]):
        return None
    found = [m.group(2).strip() for m in _ITEM.finditer(texts[-1])]
    return found or None


def without_request(view: ModelView) -> ModelView:
    """The view minus the request text (the last text block of the last message)."""
    last = view.messages[-1]
    index = max(i for i, b in enumerate(last["content"]) if b.get("type") == "text")
    rest = [b for i, b in enumerate(last["content"]) if i != index]
    messages = view.messages[:-1] + ([dict(last, content=rest)] if rest else [])
    return dataclasses.replace(view, messages=messages)


def _steps_of(scenario: Scenario, question: str) -> tuple[Call | None, list[Step]]:
    """The call a question names in backticks (``tool target``) and the steps it performs."""
    named = _NAMED.search(question)
    if named is None:
        return None, []
    calls = {c.signature: c for s in scenario.steps for c in s.calls}
    call = calls.get(named.group(1).strip())
    return call, [s for s in scenario.steps if call is not None and call in s.calls]


def _seen(scenario: Scenario, seen: Visible, facts: list[str]) -> list[str]:
    markers = [scenario.marker(f) for f in dict.fromkeys(facts)]
    return [m for m in markers if seen.sees(m)]


def _fact(scenario: Scenario, seen: Visible, question: str) -> str:
    call, steps = _steps_of(scenario, question)
    shown = _seen(scenario, seen, [f for s in steps for f in s.yields])
    return f"`{call.signature}` showed: " + " | ".join(shown) if call and shown else NOT_IN_VIEW


def _why(scenario: Scenario, seen: Visible, question: str) -> str:
    call, steps = _steps_of(scenario, question)
    reasons = _seen(scenario, seen, [f for s in steps for f in s.needs])
    rules = {c.id: c.text for c in scenario.constraints}
    reasons += [f"the user's rule: {rules[s.tempts]}" for s in steps
                if s.tempts in seen.rules and call == s.comply]
    return "It was based on: " + " | ".join(reasons) if reasons else NOT_IN_VIEW


def _forbidden(scenario: Scenario, seen: Visible) -> str:
    rules = [c.text for c in scenario.constraints if c.id in seen.rules]
    return " | ".join(rules) if rules else "None that I can see."


def _current(scenario: Scenario, seen: Visible) -> str:
    index = furthest(scenario, seen)
    if index < 0:
        return f"Last completed: nothing yet. Next: {note(scenario.steps[0])}."
    left = pending(scenario, seen)
    after = note(left[0]) if left else "nothing, the plan is complete"
    return f"Last completed: {note(scenario.steps[index])}. Next: {after}."


def answer(scenario: Scenario, seen: Visible, question: str) -> str:
    """One question's answer from the scan of the visible context."""
    if _FORBID.search(question):
        return _forbidden(scenario, seen)
    if _WHY.search(question):
        return _why(scenario, seen, question)
    if _FACT.search(question):
        return _fact(scenario, seen, question)
    if _CURRENT.search(question):
        return _current(scenario, seen)
    return "I cannot answer that from what I see."


def respond(scenario: Scenario, finder: Finder, view: ModelView) -> str | None:
    """The numbered answers to a probe request, or None when the request is not one."""
    asked = questions(view)
    if asked is None:
        return None
    seen = scan(without_request(view), finder)
    return "\n".join(f"{i}. {answer(scenario, seen, q)}" for i, q in enumerate(asked, 1))
