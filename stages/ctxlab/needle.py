"""The papers' needle experiment on the simulator: ``ctxlab rot`` (guide §4; DESIGN §4).

As in NoLiMa, RULER and Liu et al., one relevant line (the needle) sits among distractor
documents; the documents make the request ``LENGTHS`` tokens long and the needle is moved
through them. There are two needles: a *literal* one, which shares words with the question, and
a *latent* one, which shares none (NoLiMa's design); ``retrieval.kind`` — the rule every run's
facts are sorted by — decides which is which. Each request is built as a client would send it
and shown to the simulator (``Simulator.view``), which renders it; the brain's retrieval model
(``ctxlab.brain.retrieval``: ``copies`` and ``finds``, the functions every run's misses come
from) then decides, once per seed, whether the agent finds the needle. Each cell draws on its
own (the draw key holds the cell), so neighbouring cells do not share outcomes.

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

POSITIONS = (0.05, 0.25, 0.5, 0.75, 0.95)
LENGTHS = tuple(1024 * 2 ** k for k in range(8))
"""1K to 128K tokens: the published tables' lengths (NoLiMa 1K–32K, RULER 4K–128K)."""
HALF_WIDTH = 0.03
RUNS = math.ceil(1.96 ** 2 * 0.25 / HALF_WIDTH ** 2)
"""1,068 seeds per cell: 1.96 · √(0.25 / RUNS) ≤ 0.03."""
QUESTION = "Where is the spare key to the archive room kept? Answer from the documents above."
NEEDLES = {
    "literal": "The spare key to the archive room is kept in locker 4721.",
    "latent": "Marta keeps her bicycle in the shed behind the bakery.",
}
"""The latent needle shares no word with the question; the literal one shares several."""
QUESTIONS = {
    "literal": QUESTION,
    "latent": "Who owns two-wheeled transport? Answer from these documents.",
}
DOC_CHARS = 12_000
_KINDS = 8  # distinct distractor documents, repeated in turn


@dataclass(frozen=True)
class Cell:
    """The needle of ``kind`` found in ``accuracy`` of ``runs`` seeds at one position in a
    request of ``tokens``; ``extrapolated`` when the curve's table stops short of it."""

    kind: str
    tokens: int
    position: float
    accuracy: float
    runs: int
    extrapolated: bool

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


def _body(model: str, docs: list[str], question: str) -> dict[str, Any]:
    blocks = [{"type": "text", "text": doc} for doc in docs]
    return {"model": model, "max_tokens": 1024,
            "messages": [{"role": "user", "content": [*blocks,
                                                      {"type": "text", "text": question}]}]}


def _with_needle(docs: list[str], needle: str, position: float) -> list[str]:
    """``docs`` with ``needle`` on a line of its own at ``position`` of their characters (at
    the whitespace before it)."""
    total = sum(len(d) for d in docs)
    at = position * total
    for k, doc in enumerate(docs):
        if at <= len(doc) or k == len(docs) - 1:
            cut = max(doc.rfind("\n", 0, int(at)), doc.rfind(" ", 0, int(at))) + 1
            return [*docs[:k], f"{doc[:cut]}\n{needle}\n{doc[cut:]}", *docs[k + 1:]]
        at -= len(doc)
    return docs


def request(sim: Simulator, model: str, kind: str, tokens: int, position: float) -> ModelView:
    """The ``kind`` needle request ``tokens`` long on ``model``, as the model sees it."""
    question = QUESTIONS[kind]
    bare = sim.view(_body(model, _documents(tokens), question))
    docs = _documents(max(1, tokens - (bare.input_tokens - tokens)))  # framing and question
    return sim.view(_body(model, _with_needle(docs, NEEDLES[kind], position), question))


def outcomes(view: ModelView, kind: str, runs: int) -> list[bool]:
    """Whether the agent finds the ``kind`` needle in ``view``, seed by seed (the kind is the
    one ``retrieval.kind`` gives the needle and the question)."""
    where = retrieval.copies(view, NEEDLES[kind])
    sought = retrieval.kind(NEEDLES[kind], QUESTIONS[kind])
    recall = table(view.model)
    return [retrieval.finds(seed, kind, where, sought, view.input_tokens, recall)
            for seed in range(runs)]


def experiment(model: str, *, runs: int = RUNS, positions: tuple[float, ...] = POSITIONS,
               lengths: tuple[int, ...] = LENGTHS) -> list[Cell]:
    """Every cell of the experiment on ``model`` (the retrieval model on, whatever ``--rot``):
    both kinds, each length that fits the model's window, each position."""
    sim = Simulator()
    recall = table(model)
    window = models.get(model).context_window
    cells = []
    for kind in NEEDLES:
        for tokens in (t for t in lengths if t < window):
            for position in positions:
                found = outcomes(request(sim, model, kind, tokens, position), kind, runs)
                cells.append(Cell(kind, tokens, position, round(sum(found) / runs, 4), runs,
                                  recall.extrapolated(kind, tokens)))
    return cells
