"""Probe questions from a scenario's ground truth, and their automatic scores (guide §12.5).

Capacity metrics (tokens, re-triggers, thrashing) say nothing about *what* a compaction lost.
Probes ask. The four kinds of the guide, each generated from what the un-compacted history
really established — never from what a summary happens to say:

- fact recall — "What did `<call>` show?": the fact markers that call's result held;
- decision trace — "Why did you `<call>`?": the facts the step needed, and the user's rule
  when the step was the compliant choice;
- forbidden actions — "Which actions did the user explicitly forbid?": every constraint text
  given so far;
- current step — "Which step was completed last, and what is the next step?": the last step
  taken and the one after it.

The questions go to the same simulated model, appended to the compacted context; it answers
from what it can see (``ctxlab.brain.probe``). A score is the share of expected items found in
the answer: 1.0 means nothing the probe checks was lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..brain.summary import note
from ..brain.visible import normalize, result_text
from ..scenarios import Call, Scenario

KINDS = ("fact", "decision", "forbidden", "current")
LABELS = {"fact": "fact recall", "decision": "decision trace",
          "forbidden": "forbidden actions", "current": "current step"}
REQUEST = ("Pause the task and answer these questions from what you can see in this "
           "conversation. Answer every question on its own numbered line and write \"not in "
           "view\" when the conversation does not tell you. Do not call any tool.")
Messages = list[dict[str, Any]]


@dataclass(frozen=True)
class Probe:
    """One question and the items a correct answer contains."""

    kind: str
    question: str
    expected: tuple[str, ...]


@dataclass(frozen=True)
class Truth:
    """What an un-compacted history established: steps taken (plan index → the call used),
    fact markers its results showed, constraint texts the user gave."""

    taken: dict[int, Call]
    facts: frozenset[str]
    rules: tuple[str, ...]

    @property
    def last(self) -> int:
        return max(self.taken, default=-1)


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def ground_truth(scenario: Scenario, history: Messages) -> Truth:
    """Each call of ``history`` performs the first plan step not yet taken that it can stand
    for (so a second test run is the re-run step); results give the facts; user texts the
    constraints."""
    taken: dict[int, Call] = {}
    results, users = [], []
    for message in history:
        for block in _blocks(message):
            if block.get("type") == "tool_use":
                call = Call(block["name"], block.get("input", {}))
                index = next((i for i, s in enumerate(scenario.steps)
                              if i not in taken and call in s.calls), None)
                if index is not None:
                    taken[index] = call
            elif block.get("type") == "tool_result":
                results.append(result_text(block.get("content", "")))
            elif block.get("type") == "text" and message["role"] == "user":
                users.append(normalize(block["text"]))
    shown = "\n".join(results)
    facts = frozenset(m for m in scenario.facts.values() if m in shown)
    rules = tuple(c.text for c in scenario.constraints
                  if any(normalize(c.text) in u for u in users))
    return Truth(taken, facts, rules)


def make_probes(scenario: Scenario, truth: Truth) -> list[Probe]:
    """The probes for one ground truth, kind by kind, in plan order."""
    steps = scenario.steps
    facts: dict[str, list[str]] = {}
    decisions: list[Probe] = []
    for index, call in sorted(truth.taken.items()):
        step = steps[index]
        shown = [scenario.marker(f) for f in step.yields if scenario.marker(f) in truth.facts]
        if shown:
            facts.setdefault(call.signature, []).extend(shown)
        reasons = [scenario.marker(f) for f in step.needs if scenario.marker(f) in truth.facts]
        rule = next((c.text for c in scenario.constraints if c.id == step.tempts), None)
        if rule in truth.rules and call == step.comply:
            reasons.append(rule)
        if reasons:
            decisions.append(Probe("decision", f"Why did you `{call.signature}`? Name what "
                                               "it was based on.", tuple(reasons)))
    probes = [Probe("fact", f"What did `{sig}` show?", tuple(dict.fromkeys(markers)))
              for sig, markers in facts.items()]
    probes += decisions
    if truth.rules:
        probes.append(Probe("forbidden", "Which actions did the user explicitly forbid?",
                            truth.rules))
    if truth.last >= 0:
        after = note(steps[truth.last + 1]) if truth.last + 1 < len(steps) else ""
        probes.append(Probe("current", "Which step was completed last, and what is the next "
                                       "step?", (note(steps[truth.last]), after)))
    return probes


def request_text(probes: list[Probe]) -> str:
    """The user text that asks every probe, numbered."""
    return REQUEST + "\n\n" + "\n".join(f"{i}. {p.question}" for i, p in enumerate(probes, 1))


def with_request(context: Messages, probes: list[Probe]) -> Messages:
    """``context`` plus the probe request, in its last user message when it ends with one."""
    block = {"type": "text", "text": request_text(probes)}
    last = context[-1] if context else None
    if last is not None and last["role"] == "user":
        return [*context[:-1], dict(last, content=[*_blocks(last), block])]
    return [*context, {"role": "user", "content": [block]}]


def parse_answers(text: str, n: int) -> list[str]:
    """The numbered answers of a reply; a missing number is an empty answer."""
    found = dict(re.findall(r"^\s*(\d{1,2})[.)]\s*(.*)$", text, re.M))
    return [found.get(str(i), "") for i in range(1, n + 1)]


def _mentions(text: str, phrase: str) -> bool:
    """``phrase`` in ``text`` as a whole (``shard 1`` is not in ``shard 16``)."""
    return re.search(re.escape(phrase) + r"(?![\w])", text) is not None


def score(probe: Probe, answer: str) -> float:
    """Share of the expected items found in the answer (0.0–1.0)."""
    if probe.kind == "current":
        last, after = probe.expected
        parts = re.split(r"\bnext\b", answer, maxsplit=1, flags=re.I)
        head, tail = parts[0], parts[1] if len(parts) > 1 else ""
        got_next = _mentions(tail, after) if after else "complete" in tail.lower()
        return (_mentions(head, last) + got_next) / 2
    flat = normalize(answer)
    found = [item in answer or normalize(item) in flat for item in probe.expected]
    return sum(found) / len(found) if found else 0.0
