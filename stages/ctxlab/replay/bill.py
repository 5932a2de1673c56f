"""The replay's bill, with and without cache zones (guide §12.1 total bill, §5 cache zones;
API notes R17, R19, R26).

A deliberately simple model of prompt caching, to compare what a context layer costs:

- without zones every request pays its whole input at the input price;
- with zones one breakpoint sits on the last message, so the prefix a request shares with the
  previous one is read at the cache-read price and the rest is written at the 5-minute write
  price (R19, R26); a request below the model's cache minimum reads and writes nothing (R17).

The cache is not empty when a log begins: the part of a request the log does not hold (the
system prompt and tool definitions; for a compaction sidechain, the whole parent history it
summarizes) was cached by earlier calls, and no layer changes it. So the first request reads
what its recorded usage says was read, up to the size of that unseen part (``warm``); the rest
is written. Starting cold instead billed a compaction call, whose log holds only the summary
prompt, at about eight times its recorded cost: its 165K-token read became a write.

It ignores the 20-block lookback (R18) and the TTL (R21): a layer that rewrites the history
(truncation, summary) shows up as a smaller shared prefix, which is the effect to see. Side
calls the layers make (summaries) are billed as the simulator reported them, in both columns.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ctxlab import models


@dataclass
class Bill:
    """Running totals over the requests of one replay, in tokens and dollars."""

    model: str
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    without_zones_usd: float = 0.0
    with_zones_usd: float = 0.0
    recorded_usd: float = 0.0
    recorded_requests: int = 0
    summary_calls: int = 0
    summary_usd: float = 0.0
    _cached: bool = False

    @property
    def spec(self) -> models.ModelSpec:
        return models.get(self.model)

    def add(self, tokens: int, shared: int, output: int, *, warm: int = 0) -> None:
        """One request of ``tokens`` input, ``shared`` of them the previous request's prefix;
        ``warm``: when nothing before it was cached, the prefix the cache held already."""
        spec = self.spec
        self.requests += 1
        self.input_tokens += tokens
        self.output_tokens += output
        self.without_zones_usd += models.cost_usd(spec, input_tokens=tokens,
                                                  output_tokens=output)
        cacheable = tokens >= spec.cache_minimum
        read = min(shared if self._cached else warm, tokens) if cacheable else 0
        written = tokens - read if cacheable else 0
        self.cache_read_tokens += read
        self.cache_write_tokens += written
        self.with_zones_usd += models.cost_usd(spec, input_tokens=tokens - read - written,
                                               output_tokens=output, cache_read=read,
                                               write_5m=written)
        self._cached = cacheable

    def add_recorded(self, usage: dict[str, Any], model: str | None = None) -> None:
        """What a logged request cost by its own usage (R26), at the prices of ``model``, the
        one that answered it, when the model table knows it, else at this bill's (a Message
        Batch request's, ``service_tier`` "batch", at the batch discount)."""
        split = usage.get("cache_creation") or {}
        creation = int(usage.get("cache_creation_input_tokens") or 0)
        one_hour = int(split.get("ephemeral_1h_input_tokens") or 0)
        spec = (models.lookup(model.removesuffix(models.LONG_CONTEXT)) if model else None) \
            or self.spec
        self.recorded_requests += 1
        self.recorded_usd += models.cost_usd(
            spec, input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_read=int(usage.get("cache_read_input_tokens") or 0),
            write_5m=creation - one_hour, write_1h=one_hour,
            batch=usage.get("service_tier") == "batch")

    def add_summary(self, usage: Any) -> None:
        """A summary call a layer made through the session (billed by the simulator)."""
        self.summary_calls += 1
        self.summary_usd += models.cost_usd(
            self.spec, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
            cache_read=usage.cache_read_input_tokens or 0,
            write_5m=usage.cache_creation_input_tokens or 0)

    @property
    def saving(self) -> float:
        """The share of the no-zone bill that cache zones save (0 when nothing was billed)."""
        if not self.without_zones_usd:
            return 0.0
        return 1 - self.with_zones_usd / self.without_zones_usd

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if not k.startswith("_")}
        data["saving"] = self.saving
        return data
