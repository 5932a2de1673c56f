"""Whether the agent finds a fact that is in view (DESIGN §4 "Retrieval"; guide §4, context rot).

A visible fact is found with the chance its model family's recall table gives for the fact's
relative position in the request and the request's occupancy (``ctxlab.recall``). Every copy
of the fact in view (its tool result, a working note, a summary that quotes it) is a chance
to find it; the fact is missed only when every copy is. Each copy's draw is keyed on the run's
seed, the fact and the copy itself (what the tool call its result belongs to asked, and how
many identical calls came before it; or the line it sits on), never on the request's bytes (a
tool call's id is made from them) or on the other copies, so a context layer changes whether a
fact is missed only through where the fact sits and how full the request is: removing one copy
does not hand its draw to another. A copy keeps its draw from turn to turn: a fact found now is
lost later when the context around it grows until its chance falls below the draw, and a
fetched-again copy (a new tool call) has a draw of its own.

A miss looks like absence: the plan fetches the fact again (``plan.decide``). ``--rot off``
(``switched(False)``) turns the model off for a process; a view built without a layout (no
``spans``) is read as before, every visible fact found.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..recall import RecallTable, table
from ..sim import ModelView
from .calls import CallLog
from .visible import result_text

_ON = [True]


def enabled() -> bool:
    """Whether the retrieval model is on in this process (the default)."""
    return _ON[0]


@contextlib.contextmanager
def switched(on: bool) -> Iterator[None]:
    """Within this block the retrieval model is ``on`` (``--rot on|off``)."""
    before = _ON[0]
    _ON[0] = on
    try:
        yield
    finally:
        _ON[0] = before


@dataclass(frozen=True)
class Miss:
    """A visible fact the agent did not find: where its latest copy sat, how full the request
    was."""

    fact: str
    position: float
    occupancy: float


def _block_text(block: dict[str, Any]) -> str:
    """The visible text of one block (thinking and images have none the model re-reads)."""
    kind = block.get("type")
    if kind in ("thinking", "redacted_thinking", "image"):
        return ""
    if kind == "tool_result":
        return result_text(block.get("content", ""))
    if kind == "tool_use":
        return "\n".join(v for v in (block.get("input") or {}).values() if isinstance(v, str))
    if kind == "compaction":
        return str(block.get("content") or "")
    return str(block.get("text", "")) if kind == "text" else result_text([block])


def _identity(block: dict[str, Any], text: str, at: int, calls: dict[str, str]) -> str:
    """What stays the same of a copy while a layer moves it or cuts around it: the tool call
    its result or input belongs to (as ``CallLog`` names it), else the line it sits on (not
    the text around it)."""
    ident = block.get("tool_use_id") or (block.get("id") if block.get("type") == "tool_use"
                                         else None)
    key = calls.get(str(ident), str(ident)) if ident else \
        text[text.rfind("\n", 0, at) + 1:].split("\n", 1)[0]
    return hashlib.sha1(key.encode()).hexdigest()[:16]


def copies(view: ModelView, marker: str, log: CallLog | None = None) -> list[tuple[float, str]]:
    """Each block in ``view`` that shows ``marker``, in order: its relative position (0–1) and
    the identity its draw is keyed on (``_identity``). ``log``: the agent's calls so far (a
    fresh one, when not given, names only the calls in view)."""
    if not view.spans or not view.input_tokens:
        return []
    blocks = [*view.system, *(b for m in view.messages for b in m["content"])]
    calls = (CallLog() if log is None else log).read(view)
    found = []
    for block, (start, tokens) in zip(blocks, view.spans, strict=False):
        text = _block_text(block)
        at = text.find(marker)
        if at >= 0:
            found.append(((start + tokens * at / max(len(text), 1)) / view.input_tokens,
                          _identity(block, text, at, calls)))
    return found


def draw(seed: int, fact: str, copy: str) -> float:
    """The copy's uniform draw: found while its chance is above it. Keyed on the copy itself,
    so a layer that removes another copy, or moves this one, changes nothing but its chance."""
    return random.Random(f"{seed}:recall:{fact}:{copy}").random()


def missed(view: ModelView, seed: int, needs: dict[str, str], *,
           on: bool | None = None, log: CallLog | None = None) -> list[Miss]:
    """The facts of ``needs`` (name → marker) that are in view and yet not found; ``on``
    overrides the process's switch; ``log``: the agent's calls so far (``copies``)."""
    if not (enabled() if on is None else on) or not view.window or not view.spans:
        return []
    occupancy = view.input_tokens / view.window
    recall = table(view.model)
    lost = []
    for fact, marker in needs.items():
        where = copies(view, marker, log)
        if where and not finds(seed, fact, where, occupancy, recall):
            lost.append(Miss(fact, round(where[-1][0], 4), round(occupancy, 4)))
    return lost


def finds(seed: int, fact: str, where: list[tuple[float, str]], occupancy: float,
          recall: RecallTable) -> bool:
    """Whether any copy of ``fact`` (``copies``: position, identity) is found."""
    return any(draw(seed, fact, copy) < recall.accuracy(p, occupancy) for p, copy in where)
