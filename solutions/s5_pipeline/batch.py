"""When a batch of clearing pays for itself (§6.5, §6.7–6.8, §7.4).

Clearing an old result changes the history from that result on, and the cache holds a prefix
only up to a breakpoint (§6.4): with the one moving breakpoint on the newest message, every
message the next request would have read from the cache is written to it again. Compaction
saves future tokens but pays for a rewrite of the prefix at once (§6.5's paradox; a 200K
prefix costs about 200 times more to rewrite than to read). The rewrite is worth it when the
tokens it frees, read on every request still to come, cost more than the rewrite does. Once the
cache is certainly cold (idle past its TTL, §6.8) the suffix is written again anyway, so the
rewrite costs nothing extra.

So the cheapest batch is an early one: cleared right after the agent has seen it, a result
has little history behind it to rewrite — most of the suffix is the newest turn, written
anyway. What a batch may still cost is §7.4's "optional extra read": a cleared result the
agent turns out to need is fetched and written to the cache again. How likely that is, this
session tells: of the results cleared so far, how many the agent fetched again (Laplace's rule
of succession, ``refetch_chance``: a half before any evidence).

How many requests are still to come is unknown; the estimate used is as many as were sent so
far (a session seen at a random moment is, on average, half over).
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxlab.models import Prices


@dataclass(frozen=True)
class Batch:
    """One candidate batch: what it frees and the suffix of the history it rewrites."""

    freed: int  # tokens the batch removes
    suffix: int  # tokens the cache can no longer serve, before the batch

    def rewrite_cost(self, prices: Prices, *, cold: bool) -> float:
        """Dollars per million the next request pays extra for it: the suffix written after
        the batch, instead of read (or, cold, written) without it."""
        without = self.suffix * (prices.write_5m if cold else prices.cache_read)
        return (self.suffix - self.freed) * prices.write_5m - without

    def saving(self, prices: Prices, requests: int) -> float:
        """Dollars per million saved over ``requests`` later requests, each reading less."""
        return self.freed * prices.cache_read * requests

    def refetch_cost(self, prices: Prices, chance: float) -> float:
        """Dollars per million expected for fetching what it frees again: written to the
        cache once more, with probability ``chance`` (§7.4)."""
        return chance * self.freed * prices.write_5m

    def repays(self, prices: Prices, *, requests: int, cold: bool,
               refetch: float = 0.0) -> bool:
        """True when the batch frees something and saves at least what its rewrite and the
        expected fetch again (``refetch``: its chance) cost."""
        return self.freed > 0 and self.saving(prices, requests) >= self.rewrite_cost(
            prices, cold=cold) + self.refetch_cost(prices, refetch)


def refetch_chance(cleared: int, fetched_again: int) -> float:
    """The chance that the agent needs a cleared result again, from this session: Laplace's
    rule of succession over the ``cleared`` results, ``fetched_again`` of them fetched again."""
    return (fetched_again + 1) / (cleared + 2)
