"""How well each model family finds a fact that is in view: the catalogue's recall tables
(guide §4, context rot; DESIGN §4 "Retrieval").

The chance that the model finds a visible fact is ``accuracy(position, occupancy)``: the
fact's relative position in the request (0 first token, 1 last) and the request's share of
the model's window. It is the end-of-input accuracy at that occupancy (the decline with
length), lowered by a positional dip whose shape moves with occupancy:

- up to ``u_until`` (50 %) a symmetric U: the middle loses ``dip`` of the accuracy, the start
  and the end nothing (Liu et al. 2023; Veseli et al. 2025: the U is strongest up to 50 %);
- beyond it primacy fades linearly until the window is full: the start sinks to the middle's
  level and accuracy depends on the distance from the end only (Veseli et al. 2025).

The figures were measured on older models than the catalogue's; every family below uses the
same table, extrapolated, and says so. Sources (``../shared/reference/context-rot.md``):

- end accuracy with a short context: 1.00 (SWiM, §5.4: literal needles are found at every
  depth);
- end accuracy at 25.6 % full: 0.92, and at 100 % full: 0.78 (MRCR v2, Opus 4.6: 78.3 % at
  1M and about 14 points more at 256K, §5.3, SECONDARY);
- middle dip up to 50 % full: 0.30 of the ends' accuracy (Liu et al.: about 75 % at the ends
  and under 50 % in the middle with 20 documents, "20+ points", §1.2, SECONDARY); reached at
  25 % full and kept beyond, where it is the start's loss too;
- middle dip at a nearly empty window: 0.05. Not measured: NoLiMa keeps 0.99 of its base up
  to 1.6 % full (§3.2); the dip's growth to Liu's value at 25 % is an assumption, stated;
- the U up to 50 % full (Veseli et al., abstract, §2.2, PRIMARY); primacy gone when full
  (Veseli et al.: it "collapses" near the limit, §2.3, FIGURE-ONLY).

MRCR scores average over the needles' positions; they are used here as the end accuracy, an
optimistic reading. NoLiMa's steeper decline (GPT-4o keeps 0.70 of its base at 25 % full) is
for paraphrased needles; the agent's facts are verbatim, so the flatter Claude figures apply.
No value here was read off a plot: where the papers give only a plot, the table uses the
shape their text states.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass


@dataclass(frozen=True)
class RecallTable:
    """One model family's recall figures (points are (occupancy, value), interpolated)."""

    end: tuple[tuple[float, float], ...]
    dip: tuple[tuple[float, float], ...]
    u_until: float
    primacy_gone: float
    sources: str

    def accuracy(self, position: float, occupancy: float) -> float:
        """The chance of finding a fact at ``position`` (0–1) in a request ``occupancy`` full."""
        x = min(max(position, 0.0), 1.0)
        u_shape = 1.0 - (2.0 * x - 1.0) ** 2  # 0 at both ends, 1 in the middle
        by_distance = min(1.0, 2.0 * (1.0 - x))  # 0 at the end, 1 from the middle back
        kept = self.primacy(occupancy)
        weight = kept * u_shape + (1.0 - kept) * by_distance
        return _at(self.end, occupancy) * (1.0 - _at(self.dip, occupancy) * weight)

    def primacy(self, occupancy: float) -> float:
        """How much of the U's primacy side is left (1 up to ``u_until``, 0 when full)."""
        if occupancy <= self.u_until:
            return 1.0
        return max(0.0, 1.0 - (occupancy - self.u_until) / (self.primacy_gone - self.u_until))


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


PUBLISHED = RecallTable(
    end=((0.0, 1.00), (0.256, 0.92), (1.0, 0.78)),
    dip=((0.0, 0.05), (0.25, 0.30), (1.0, 0.30)),
    u_until=0.5,
    primacy_gone=1.0,
    sources="Liu et al. 2023; Veseli et al. 2025; NoLiMa 2025; Chroma 2025; MRCR v2 (Opus "
            "4.6); measured on older models, extrapolated to this family",
)

FAMILIES = ("fable", "mythos", "opus", "sonnet", "haiku", "ctxlab-sim")
"""The catalogue's model families; each has its own entry in ``TABLES``."""
TABLES: dict[str, RecallTable] = {family: PUBLISHED for family in FAMILIES}
"""One table per family; all identical for now (the papers do not separate them)."""

POINTS = (
    {"source": "Liu et al. 2023 (20 documents, SECONDARY)", "position": 0.0, "accuracy": 0.75},
    {"source": "Liu et al. 2023 (20 documents, SECONDARY)", "position": 0.5, "accuracy": 0.50},
    {"source": "Liu et al. 2023 (20 documents, SECONDARY)", "position": 1.0, "accuracy": 0.75},
    {"source": "NoLiMa GPT-4o share of base", "occupancy": 0.0625, "accuracy": 0.898},
    {"source": "NoLiMa GPT-4o share of base", "occupancy": 0.125, "accuracy": 0.822},
    {"source": "NoLiMa GPT-4o share of base", "occupancy": 0.25, "accuracy": 0.702},
    {"source": "MRCR v2 Opus 4.6 (SECONDARY)", "occupancy": 0.256, "accuracy": 0.923},
    {"source": "MRCR v2 Opus 4.6 (SECONDARY)", "occupancy": 1.0, "accuracy": 0.783},
)
"""The published points ``ctxlab rot`` shows beside its simulated curves (occupancy unknown
for Liu et al.: its Appendix F token counts were not found, context-rot.md §1.3)."""


def family(model_id: str) -> str:
    """The family of a model id: the first of ``FAMILIES`` it names (``ctxlab-sim`` else)."""
    return next((f for f in FAMILIES if f in model_id), "ctxlab-sim")


def table(model_id: str) -> RecallTable:
    """The recall table of ``model_id``'s family."""
    return TABLES[family(model_id)]
