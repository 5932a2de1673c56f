"""The papers' needle experiment on the simulator: ``ctxlab rot`` (guide §4; DESIGN §4).

As in Liu et al. 2023 and Veseli et al. 2025, one relevant line (the needle) sits among
distractor documents; the documents fill a share of the model's window (Veseli et al.'s
relative length) and the needle is moved through them. Each request is built as a client
would send it and shown to the simulator (``Simulator.view``), which renders it; the brain's
retrieval model (``ctxlab.brain.retrieval``: ``copies`` and ``finds``, the functions every
run's misses come from) then decides, once per seed, whether the agent finds the needle.

Each cell runs ``RUNS`` seeds: enough for a 95 % confidence half-width of at most
``HALF_WIDTH`` whatever the accuracy (the normal bound at p = 0.5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from . import models
from .brain import retrieval
from .recall import table
from .scenarios.generate import text
from .sim import ModelView, Simulator
from .tokens import count_text

POSITIONS = tuple(round(0.05 + 0.1 * k, 2) for k in range(10))
OCCUPANCIES = (0.25, 0.5, 0.75, 0.95)
HALF_WIDTH = 0.03
RUNS = math.ceil(1.96 ** 2 * 0.25 / HALF_WIDTH ** 2)
"""1,068 seeds per cell: 1.96 · √(0.25 / RUNS) ≤ 0.03."""
FACT = "needle"
NEEDLE = "The spare key to the archive room is kept in locker 4721."
QUESTION = "Where is the spare key to the archive room kept? Answer from the documents above."
DOC_CHARS = 12_000
_KINDS = 8  # distinct distractor documents, repeated in turn


@dataclass(frozen=True)
class Cell:
    """The needle found in ``accuracy`` of ``runs`` seeds at one position and occupancy."""

    occupancy: float
    position: float
    accuracy: float
    runs: int

    @property
    def half_width(self) -> float:
        """The 95 % confidence half-width of ``accuracy`` (normal approximation)."""
        p = self.accuracy
        return 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / self.runs)


def _documents(tokens: int) -> list[str]:
    """Distractor documents of about ``tokens`` tokens in all (the last one cut to fit)."""
    docs: list[str] = []
    left = tokens
    while left > 0:
        doc = text("prose", DOC_CHARS, f"needle:{len(docs) % _KINDS}")
        size = count_text(doc)
        if size > left:
            doc = doc[:max(1, len(doc) * left // size)]
            size = left
        docs.append(doc)
        left -= size
    return docs


def _body(model: str, docs: list[str]) -> dict[str, Any]:
    blocks = [{"type": "text", "text": doc} for doc in docs]
    return {"model": model, "max_tokens": 1024,
            "messages": [{"role": "user", "content": [*blocks,
                                                      {"type": "text", "text": QUESTION}]}]}


def _with_needle(docs: list[str], position: float) -> list[str]:
    """``docs`` with the needle on a line of its own at ``position`` of their characters (at
    the whitespace before it)."""
    total = sum(len(d) for d in docs)
    at = position * total
    for k, doc in enumerate(docs):
        if at <= len(doc) or k == len(docs) - 1:
            cut = max(doc.rfind("\n", 0, int(at)), doc.rfind(" ", 0, int(at))) + 1
            return [*docs[:k], f"{doc[:cut]}\n{NEEDLE}\n{doc[cut:]}", *docs[k + 1:]]
        at -= len(doc)
    return docs


def request(sim: Simulator, model: str, occupancy: float, position: float) -> ModelView:
    """The needle request filling ``occupancy`` of ``model``'s window, as the model sees it."""
    window = models.get(model).context_window
    target = round(occupancy * window)
    bare = sim.view(_body(model, _documents(target)))
    docs = _documents(max(1, target - (bare.input_tokens - target)))  # framing and question
    return sim.view(_body(model, _with_needle(docs, position)))


def experiment(model: str, *, runs: int = RUNS,
               positions: tuple[float, ...] = POSITIONS,
               occupancies: tuple[float, ...] = OCCUPANCIES) -> list[Cell]:
    """Every cell of the experiment on ``model`` (the retrieval model on, whatever ``--rot``)."""
    sim = Simulator()
    recall = table(model)
    cells = []
    for occupancy in occupancies:
        for position in positions:
            view = request(sim, model, occupancy, position)
            where = retrieval.copies(view, NEEDLE)
            filled = view.input_tokens / view.window
            found = sum(retrieval.finds(seed, FACT, where, filled, recall)
                        for seed in range(runs))
            cells.append(Cell(occupancy, position, round(found / runs, 4), runs))
    return cells
