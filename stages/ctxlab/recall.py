"""How well each model family finds a fact that is in view: the catalogue's recall tables
(guide §4, context rot; DESIGN §4 "Retrieval"; the sources and the fits in ``docs/rot.md``).

The chance depends on what the model reads, never on the window it could have read:

- the **length** of the request (the tokens in front of the model), through a curve per
  **kind** of fact: *literal* (the text the agent seeks is written in the context: a path, an
  error line, a name) or *latent* (it must be recognised without a shared word). Each curve is
  a fit to one published table (share of the model's short-context score by length); the
  form is the same for both, a hinge on log2(tokens): nothing is lost up to a knee, then a
  fixed share per doubling (``Curve``), its two parameters fitted by least squares;
- the fact's **relative position** (0 first token, 1 last): the published scores are averages
  over positions, so position shares out the length's loss as Liu et al. measured it
  (``Profile``): less at the start, most in the middle, the end in between.

Beyond a table's lengths the curve is an extrapolation (``extrapolated``), labelled so in
``ctxlab rot`` and ``docs/rot.md``. The papers measured older models than the catalogue's:
every family below uses the same tables, and says so.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property

KINDS = ("literal", "latent")


@dataclass(frozen=True)
class Curve:
    """Share of the short-context score by length: ``points`` (tokens, share) from a table,
    fitted as 1 up to ``knee`` tokens, then ``slope`` less per doubling (floor 0)."""

    source: str
    points: tuple[tuple[int, float], ...]

    @cached_property
    def fit(self) -> tuple[float, float]:
        """(knee in tokens, loss per doubling): least squares over a 0.01-doubling grid."""
        return _hinge(self.points)

    def share(self, tokens: float) -> float:
        knee, slope = self.fit
        return max(0.0, 1.0 - slope * max(0.0, math.log2(max(tokens, 1.0) / knee)))

    def extrapolated(self, tokens: float) -> bool:
        """Whether ``tokens`` lies outside the table's lengths."""
        return not self.points[0][0] <= tokens <= self.points[-1][0]

    def errors(self) -> list[dict[str, float]]:
        """Each table cell beside the fit: the per-cell error ``docs/rot.md`` shows."""
        return [{"tokens": t, "table": round(v, 4), "fit": round(self.share(t), 4),
                 "error": round(self.share(t) - v, 4)} for t, v in self.points]


def _hinge(points: tuple[tuple[int, float], ...]) -> tuple[float, float]:
    xs = [math.log2(t) for t, _ in points]
    best: tuple[float, float, float] | None = None
    for step in range(round(xs[0] * 100) - 300, round(xs[-1] * 100) + 1):
        knee = step / 100
        h = [max(0.0, x - knee) for x in xs]
        hh = sum(v * v for v in h)
        if hh == 0:
            continue
        slope = sum(v * (1 - y) for v, (_, y) in zip(h, points, strict=True)) / hh
        err = sum((1 - slope * v - y) ** 2 for v, (_, y) in zip(h, points, strict=True))
        if best is None or err < best[0] - 1e-15:
            best = (err, knee, slope)
    assert best is not None
    return 2 ** best[1], best[2]


@dataclass(frozen=True)
class Profile:
    """How a length's loss is shared over positions: ``points`` (position, score as a share of
    the single-document score) from Liu et al.; the loss ``1 - share`` interpolated and scaled
    to a mean of 1 over [0, 1], so that the mean over positions is the length curve's value."""

    source: str
    points: tuple[tuple[float, float], ...]

    def weight(self, position: float) -> float:
        return _at(self._losses, position) / self.mean_loss

    @cached_property
    def _losses(self) -> tuple[tuple[float, float], ...]:
        return tuple((p, 1.0 - s) for p, s in self.points)

    @cached_property
    def mean_loss(self) -> float:
        """The interpolated loss's mean over [0, 1] (a midpoint sum of 1,000 steps)."""
        steps = 1000
        return sum(_at(self._losses, (k + 0.5) / steps) for k in range(steps)) / steps


def _at(points: tuple[tuple[float, float], ...], x: float) -> float:
    """Linear interpolation through ``points``, flat beyond the first and the last."""
    xs = [p[0] for p in points]
    k = bisect_right(xs, x)
    if k == 0:
        return points[0][1]
    if k == len(points):
        return points[-1][1]
    (x0, y0), (x1, y1) = points[k - 1], points[k]
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


@dataclass(frozen=True)
class RecallTable:
    """One model family's recall: a length curve per kind of fact and a position profile."""

    literal: Curve
    latent: Curve
    position: Profile
    sources: str

    def curve(self, kind: str) -> Curve:
        return self.latent if kind == "latent" else self.literal

    def accuracy(self, kind: str, tokens: float, position: float) -> float:
        """The chance of finding a ``kind`` fact at ``position`` (0–1) of a ``tokens`` request."""
        loss = 1.0 - self.curve(kind).share(tokens)
        return min(1.0, max(0.0, 1.0 - loss * self.position.weight(min(max(position, 0), 1))))

    def extrapolated(self, kind: str, tokens: float) -> bool:
        return self.curve(kind).extrapolated(tokens)


K = 1024
# RULER (Hsieh et al., COLM 2024), README of github.com/NVIDIA/RULER (commit c3f5e3b, main
# results table), row GPT-4-1106-preview: 96.6, 96.3, 95.2, 93.2, 87.0, 81.2 at 4K–128K,
# taken as a share of its 4K score. Averaged over 13 tasks, mostly literal needles.
_RULER_GPT4 = (96.6, 96.3, 95.2, 93.2, 87.0, 81.2)
LITERAL = Curve(
    "RULER, GPT-4-1106-preview (share of its 4K score)",
    tuple((4 * K * 2 ** i, v / _RULER_GPT4[0]) for i, v in enumerate(_RULER_GPT4)))
# NoLiMa (Modarressi et al., ICML 2025), README of github.com/adobe-research/NoLiMa (commit
# 7532e4e), row Claude 3.5 Sonnet: base score 87.6; 85.4, 84.0, 77.6, 61.7, 45.7, 29.8 at
# 1K–32K, taken as a share of the base score (question and needle share no word).
_NOLIMA_SONNET = (85.4, 84.0, 77.6, 61.7, 45.7, 29.8)
LATENT = Curve(
    "NoLiMa, Claude 3.5 Sonnet (share of its base score 87.6)",
    tuple((K * 2 ** i, v / 87.6) for i, v in enumerate(_NOLIMA_SONNET)))
# Liu et al. 2023 ("Lost in the Middle", TACL 2024, arXiv 2307.03172), GPT-3.5-Turbo, 20
# documents (about 2,946 tokens, Table 3): 75.8, 57.2, 53.8, 55.4, 63.2 % with the answer in
# document 1, 5, 10, 15, 20 (Appendix G, Table 6), as a share of its oracle score 88.3 %
# (one document, Table 1); position = the middle of that document.
_LIU_GPT35_20 = ((0, 75.8), (4, 57.2), (9, 53.8), (14, 55.4), (19, 63.2))
POSITION = Profile(
    "Liu et al. 2023, GPT-3.5-Turbo, 20 documents (share of its oracle score 88.3 %)",
    tuple(((k + 0.5) / 20, v / 88.3) for k, v in _LIU_GPT35_20))

PUBLISHED = RecallTable(
    literal=LITERAL, latent=LATENT, position=POSITION,
    sources="RULER 2024 (literal by length); NoLiMa 2025 (latent by length); Liu et al. "
            "2023 (position); measured on older models, extrapolated to this family",
)

FAMILIES = ("fable", "mythos", "opus", "sonnet", "haiku", "ctxlab-sim")
"""The catalogue's model families; each has its own entry in ``TABLES``."""
TABLES: dict[str, RecallTable] = {family: PUBLISHED for family in FAMILIES}
"""One table per family; all identical for now (the papers do not separate them)."""


def published() -> list[dict[str, object]]:
    """The table cells ``ctxlab rot`` shows beside its simulated ones (kind, tokens or
    position, the published share)."""
    cells: list[dict[str, object]] = [
        {"source": c.source, "kind": kind, "tokens": t, "accuracy": round(v, 4)}
        for kind, c in (("literal", LITERAL), ("latent", LATENT)) for t, v in c.points]
    cells += [{"source": POSITION.source, "position": p, "accuracy": round(v, 4)}
              for p, v in POSITION.points]
    return cells


def family(model_id: str) -> str:
    """The family of a model id: the first of ``FAMILIES`` it names (``ctxlab-sim`` else)."""
    return next((f for f in FAMILIES if f in model_id), "ctxlab-sim")


def table(model_id: str) -> RecallTable:
    """The recall table of ``model_id``'s family."""
    return TABLES[family(model_id)]
