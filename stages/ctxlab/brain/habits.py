"""Habits of a real model: working notes, output length, re-reads, parallel calls (DESIGN §4
"habits").

The defaults are measured, not chosen: ``ctxlab calibrate`` on the real Claude Code logs of
``CALIBRATED_ON`` printed ``CALIBRATED`` (a test recomputes them when the logs are present).
A scenario may set its own in ``[behaviour]``; a ``Brain`` may be given others for one run.

- *Working notes*: after a tool result that holds new distinctive items
  (``ctxlab.calibrate.items``, the definition ``calibrate`` measures), the reply restates them
  and the scenario facts the result shows, at ``note_rate``: the results with items are noted
  evenly spread (``noted``), so a run's measured rate is ``note_rate`` to within one result.
  A noted fact stays visible when its result is cleared; an un-noted one must be fetched again.
  A note on one of several results that came back together names no item of a result left
  un-noted (``calibrate`` would read that one as noted too).
- *Re-reads in view*: ``reread_in_view_rate`` of reads are of a file still in view
  (``rereads``).
- *Parallel calls*: a response that opens with a read, a search or a command holds on average
  ``parallel_read``, ``parallel_search`` or ``parallel_run`` calls where the plan's next steps
  are independent and their needs visible (``parallel``).
- *Output length*: each answer's output tokens are drawn from a log-normal with the measured
  median and 90th percentile (the draw keyed on the run seed, the kind of answer and how many
  tool calls the agent has made so far, never on the request's bytes, so that two layers at
  the same point of a task draw the same length); text (or thinking, when the request
  enables it) is added in plain prose until the reply has that many tokens. Prose only: no
  item, fact or rule in it.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, fields
from typing import Any

from ..calibrate.items import items, spoken
from ..scenarios import Scenario
from ..sim import ModelView
from ..tokens import count_block, encoding
from .visible import Finder, result_text

CALIBRATED = {"note_rate": 0.0762, "output_tokens_median": 232.6247,
              "output_tokens_p90": 695.5675, "reread_in_view_rate": 0.1132,
              "parallel_read": 2.119, "parallel_search": 2.0289, "parallel_run": 1.3519}
"""The per-session estimates (``per_session``: each session weighs by its count up to the
median session's, ``ctxlab.calibrate.estimate``) of ``ctxlab calibrate <folders> --json`` on
the logs below (39 logs grouped into 33 sessions: 33 main threads and 7 sidechains; 1,165
responses, a compaction call counting as none). Their bootstrap 95 % intervals, from the same
run: note rate 0.027–0.141 (19 sessions), output tokens median 191–298 and p90 492–1,154 (14),
in-view re-reads 0.024–0.227 (18), calls per calling response opening with a read 1.41–2.92
(17), a search 1.53–2.47 (15), a command 1.20–1.70 (21)."""
CALIBRATED_ON = ("../shared/transcripts", "../shared/sessions")
"""The public Claude Code session logs the defaults were measured on: every ``*.jsonl`` in
these folders (39 logs, 7 of them sidechains; sources and licenses in the sessions folder's
SOURCE.md; they are not copied into the project)."""
_Z90 = 1.2815515655446004  # the standard normal's 90th percentile
MAX_ITEMS = 3  # items restated per result, besides its facts

_PROSE = (
    "I want to keep the change as small as the task allows.",
    "Before going further I am checking that this fits what was asked.",
    "That matches what I expected, so the plan stays the same.",
    "There is nothing here that changes the approach.",
    "I will keep the existing behaviour everywhere else untouched.",
    "The next step follows directly from what I have seen so far.",
    "It is worth confirming this properly rather than assuming it.",
    "This looks consistent with the rest of the code I have looked at.",
    "I am going through it carefully so that nothing is missed.",
    "Once this is done the remaining work should be straightforward.",
)


@dataclass(frozen=True)
class Behaviour:
    """The habits one run uses."""

    note_rate: float = CALIBRATED["note_rate"]
    output_tokens_median: float = CALIBRATED["output_tokens_median"]
    output_tokens_p90: float = CALIBRATED["output_tokens_p90"]
    reread_in_view_rate: float = CALIBRATED["reread_in_view_rate"]
    parallel_read: float = CALIBRATED["parallel_read"]
    parallel_search: float = CALIBRATED["parallel_search"]
    parallel_run: float = CALIBRATED["parallel_run"]

    @classmethod
    def of(cls, scenario: Scenario, **overrides: float | None) -> Behaviour:
        """Calibrated defaults, then the scenario's ``[behaviour]``, then ``overrides``."""
        known = {f.name for f in fields(cls)}
        unknown = set(overrides) - known
        if unknown:
            raise ValueError(f"unknown habit(s) {sorted(unknown)}; known: {sorted(known)}")
        chosen = {**scenario.behaviour, **{k: v for k, v in overrides.items() if v is not None}}
        behaviour = cls(**chosen)
        if not 0 <= behaviour.note_rate <= 1:
            raise ValueError("note_rate must be a probability in [0, 1]")
        if not 0 <= behaviour.reread_in_view_rate < 1:
            raise ValueError("reread_in_view_rate must be a share of reads in [0, 1)")
        if not 0 < behaviour.output_tokens_median <= behaviour.output_tokens_p90:
            raise ValueError("output lengths need 0 < median <= p90")
        if min(behaviour.parallel.values()) < 1:
            raise ValueError("calls per calling response (parallel_*) must be at least 1")
        return behaviour

    @property
    def parallel(self) -> dict[str, float]:
        """Calls per calling response by the kind of its first call (``ctxlab.kinds``)."""
        return {"read": self.parallel_read, "search": self.parallel_search,
                "run": self.parallel_run}

    def output_tokens(self, rng: random.Random) -> int:
        """One draw of an answer's output tokens."""
        mu = math.log(self.output_tokens_median)
        sigma = (math.log(self.output_tokens_p90) - mu) / _Z90
        return max(1, round(math.exp(rng.gauss(mu, sigma))))


def _input(block: dict[str, Any]) -> str:
    return json.dumps(block.get("input") or {}, ensure_ascii=False)


def _history(messages: list[dict[str, Any]]) -> tuple[int, set[str]]:
    """How many results in ``messages`` hold new items, and the items the user's and the
    agent's own texts and call inputs hold (what a later result's items must be new to)."""
    known: set[str] = set()
    bearing = 0
    calls: dict[Any, str] = {}
    for message in messages:
        for block in message["content"]:
            kind = block.get("type")
            if kind == "text":
                known |= items(str(block.get("text", "")))
            elif kind == "tool_use":
                calls[block.get("id")] = _input(block)
                known |= items(calls[block.get("id")])
            elif kind == "tool_result" and block.get("tool_use_id") in calls:
                found = items(result_text(block.get("content", "")))
                bearing += bool(found - known - items(calls[block["tool_use_id"]]))
    return bearing, known


GOLDEN = (math.sqrt(5) - 1) / 2
"""The Weyl step between the phases of successive seeds: the most evenly spread sequence."""


def noted(k: int, rate: float, scenario: str, seed: int) -> bool:
    """Whether the ``k``-th result with items (from 0) gets a note: evenly spread, so that any
    run of results is noted at ``rate`` to within one (systematic sampling). Each run seed is a
    session of its own with its own phase; the phases of a scenario's seeds are stratified
    (a golden-ratio sequence from the scenario's draw), so that sessions pooled over seeds are
    noted at ``rate`` too, where independent phases would let a few results swing the count."""
    start = random.Random(f"{scenario}:notes").random()
    phase = (start + seed * GOLDEN) % 1.0
    return math.floor((k + 1) * rate + phase) > math.floor(k * rate + phase)


def notes(view: ModelView, scenario: Scenario, finder: Finder, behaviour: Behaviour,
          seed: int) -> list[str]:
    """Working notes on the results the last message brings, one line per noted result."""
    if not view.messages or view.messages[-1]["role"] != "user" or len(view.messages) < 2:
        return []
    calls = {b.get("id"): b for b in view.messages[-2]["content"] if b.get("type") == "tool_use"}
    if not any(b.get("type") == "tool_result" for b in view.messages[-1]["content"]):
        return []
    k, known = _history(view.messages[:-1])
    taken: list[tuple[dict[str, Any], str, list[str]]] = []
    passed: set[str] = set()  # items of the results left un-noted
    for block in view.messages[-1]["content"]:
        call = calls.get(block.get("tool_use_id")) if block.get("type") == "tool_result" else None
        if call is None:
            continue
        text = result_text(block.get("content", ""))
        extra = sorted(items(text) - known - items(_input(call)))
        if not extra:
            continue
        k += 1
        if noted(k - 1, behaviour.note_rate, scenario.name, seed):
            taken.append((call, text, extra))
        else:
            passed.update(extra)
    said = []
    facts = set(scenario.facts.values())
    for call, text, extra in taken:  # a note on one of several results in one message
        found = sorted(m for m in finder.find(text)[0]  # names none of the items of a
                       if m in facts and not items(m) & passed)  # result left un-noted
        shown = found + [spoken(i) for i in extra
                         if i not in passed and not any(spoken(i) in f for f in found)]
        said.append(f"Noted from {call.get('name')}: "
                    + "; ".join(shown[:len(found) + MAX_ITEMS]))
    return said


def prose(tokens: int, rng: random.Random) -> str:
    """Plain sentences of about ``tokens`` tokens (cut to fit), free of items and facts."""
    words: list[str] = []
    size = 0
    while size < tokens:
        sentence = rng.choice(_PROSE)
        words.append(sentence)
        size += len(encoding().encode(" " + sentence))
    text = " ".join(words)
    ids = encoding().encode(text)
    return encoding().decode(ids[:tokens]) if len(ids) > tokens else text


def pad(blocks: list[dict[str, Any]], target: int, rng: random.Random,
        thinking: bool) -> list[dict[str, Any]]:
    """``blocks`` grown to about ``target`` output tokens: thinking when enabled, else the
    first text block gets the extra prose."""
    missing = target - sum(count_block(b) for b in blocks)
    if missing <= 8:
        return blocks
    extra = prose(missing, rng)
    kind = "thinking" if thinking else "text"
    for i, block in enumerate(blocks):
        if block.get("type") == kind:
            return [*blocks[:i], dict(block, **{kind: f"{block[kind]}\n\n{extra}"}),
                    *blocks[i + 1:]]
    return [{"type": kind, kind: extra}, *blocks]
