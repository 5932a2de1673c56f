"""Whether the agent finds a fact that is in view (DESIGN §4 "Retrieval"; guide §4, context rot).

A visible fact is found with the chance its model family's recall table gives for the fact's
relative position in the request and the request's occupancy (``ctxlab.recall``). Every copy
of the fact in view (its tool result, a working note, a summary that quotes it) is a chance
to find it; the fact is missed only when every copy is. Each copy's draw is keyed on the run's
seed, the fact and the copy's occurrence (the first copy in view, the second …), never on the
request's bytes, so a context layer changes whether a fact is missed only through where the
fact sits and how full the request is. A copy keeps its draw from turn to turn: a fact found
now is lost later when the context around it grows until its chance falls below the draw,
and a fetched-again copy is a new occurrence with a draw of its own.

A miss looks like absence: the plan fetches the fact again (``plan.decide``). ``--rot off``
(``switched(False)``) turns the model off for a process; a view built without a layout (no
``spans``) is read as before, every visible fact found.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..recall import RecallTable, table
from ..sim import ModelView
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


def copies(view: ModelView, marker: str) -> list[float]:
    """The relative position (0–1) of each block in ``view`` that shows ``marker``, in order."""
    if not view.spans or not view.input_tokens:
        return []
    blocks = [*view.system, *(b for m in view.messages for b in m["content"])]
    found = []
    for block, (start, tokens) in zip(blocks, view.spans, strict=False):
        text = _block_text(block)
        at = text.find(marker)
        if at >= 0:
            found.append((start + tokens * at / max(len(text), 1)) / view.input_tokens)
    return found


def draw(seed: int, fact: str, occurrence: int) -> float:
    """The copy's uniform draw: found while its chance is above it."""
    return random.Random(f"{seed}:recall:{fact}:{occurrence}").random()


def missed(view: ModelView, seed: int, needs: dict[str, str], *,
           on: bool | None = None) -> list[Miss]:
    """The facts of ``needs`` (name → marker) that are in view and yet not found; ``on``
    overrides the process's switch."""
    if not (enabled() if on is None else on) or not view.window or not view.spans:
        return []
    occupancy = view.input_tokens / view.window
    recall = table(view.model)
    lost = []
    for fact, marker in needs.items():
        where = copies(view, marker)
        if where and not finds(seed, fact, where, occupancy, recall):
            lost.append(Miss(fact, round(where[-1], 4), round(occupancy, 4)))
    return lost


def finds(seed: int, fact: str, where: list[float], occupancy: float,
          recall: RecallTable) -> bool:
    """Whether any copy of ``fact`` (at the relative positions ``where``) is found."""
    return any(draw(seed, fact, k) < recall.accuracy(p, occupancy) for k, p in enumerate(where))
