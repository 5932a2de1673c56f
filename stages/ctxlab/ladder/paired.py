"""A verdict from seeds: a paired comparison of a pitfall's own quantity (DESIGN §8).

One run is one draw of the simulated model (its misses are seeded), so a rung whose quantity
varies from seed to seed is judged on the same seeds at two cells: the cell that may show the
pitfall (stage N, or a naive variant) and the cell that fixes it (stage N+1, or the stage
without the variant). The statistic is a one-sided sign test on the pairs: the seeds on which
the quantity is worse at the first cell, against those on which it is better (ties carry no
sign and are dropped), p = P(at least that many worse | no difference). *Pitfall* when
p < ``ALPHA`` and the rung's mechanism was observed on at least one of the worse seeds;
*holds* at the fixing cell when the same test, run from its side, shows the weaker cell worse;
*not shown* otherwise, with the figures of every seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb

from .core import Cell, Verdict, holds, not_shown, pitfall

SEEDS = tuple(range(8))
"""The seeds every paired rung runs (``ctxlab ladder --json`` names them in its evidence)."""
ALPHA = 0.05


@dataclass(frozen=True)
class Paired:
    """The sign test of ``worse`` (higher is worse) against ``better``, seed by seed."""

    quantity: str
    seeds: tuple[int, ...]
    weak: tuple[float, ...]  # the quantity at the cell that may show the pitfall
    strong: tuple[float, ...]  # at the cell that fixes it

    @property
    def worse(self) -> int:
        return sum(a > b for a, b in zip(self.weak, self.strong, strict=True))

    @property
    def better(self) -> int:
        return sum(a < b for a, b in zip(self.weak, self.strong, strict=True))

    @property
    def p(self) -> float:
        """One-sided sign test: P(at least ``worse`` of the untied pairs | p = 1/2)."""
        n = self.worse + self.better
        if n == 0:
            return 1.0
        return sum(comb(n, k) for k in range(self.worse, n + 1)) / 2 ** n

    @property
    def shown(self) -> bool:
        return self.p < ALPHA

    def describe(self, weak: str, strong: str, fmt: Callable[[float], str] = str) -> str:
        """The statistic and the figures: seeds, counts, p and each seed's pair."""
        ties = len(self.seeds) - self.worse - self.better
        pairs = " ".join(f"{fmt(a)}/{fmt(b)}" for a, b in zip(self.weak, self.strong,
                                                              strict=True))
        return (f"{self.quantity}, {weak} vs {strong} on seeds {self.seeds[0]}–{self.seeds[-1]}: "
                f"worse on {self.worse}, better on {self.better}, tied on {ties}; one-sided "
                f"sign test p = {self.p:.3f} ({'<' if self.shown else '≥'} {ALPHA}); per seed "
                f"{pairs}")


def paired(quantity: str, weak: Sequence[float], strong: Sequence[float],
           seeds: Sequence[int] = SEEDS) -> Paired:
    """The paired figures of two cells over ``seeds`` (higher is worse)."""
    return Paired(quantity, tuple(seeds), tuple(weak), tuple(strong))


def sides(cell: Cell, fixed_in: int) -> tuple[bool, Cell]:
    """Whether ``cell`` is the weak side, and the cell it is paired with: a naive variant with
    its own stage, a stage before the fix with the fixing stage, the fixing stage or a later
    one with the stage before the fix."""
    if cell.variant:
        return True, Cell.parse(str(cell.stage))
    if cell.stage < fixed_in:
        return True, Cell.parse(str(fixed_in))
    return False, Cell.parse(str(fixed_in - 1))


def judge(cell: Cell, partner: Cell, *, weak_side: bool, name: str,
          quantity: Callable[[Cell, int], float], mechanism: Callable[[Cell, int], str | None],
          fmt: Callable[[float], str] = lambda v: f"{v:g}") -> Verdict:
    """``cell`` judged against ``partner`` over ``SEEDS``: ``weak_side`` when ``cell`` is the
    one that may show the pitfall (``mechanism(cell, seed)`` says what was observed on a seed,
    or None), else ``cell`` is the fix and ``partner`` the weaker cell."""
    weak, strong = (cell, partner) if weak_side else (partner, cell)
    test = paired(name, [quantity(weak, s) for s in SEEDS], [quantity(strong, s) for s in SEEDS])
    figures = test.describe(weak.key, strong.key, fmt)
    if not test.shown:
        return not_shown(figures)
    if not weak_side:
        return holds(figures)
    worse = [s for s, a, b in zip(test.seeds, test.weak, test.strong, strict=True) if a > b]
    seen = next(((s, m) for s in worse if (m := mechanism(cell, s)) is not None), None)
    if seen is None:
        return not_shown(f"{figures}; the mechanism was not observed on a worse seed")
    return pitfall(f"{figures}; mechanism, seed {seen[0]}: {seen[1]}")
