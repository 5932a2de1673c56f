"""Build a :class:`TurnRecord` from the API's ``usage`` block (§12.6, §14 stage 1 step 4).

The usage block is the only ground truth for cost and caching (§12.6): total input is
``input_tokens + cache_read_input_tokens + cache_creation_input_tokens``, the cache writes
split by TTL in ``cache_creation``, and ``service_tier`` "batch" marks a Message Batch request
(billed at the batch discount). Any optional field may be missing or None.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctxlab import models
from ctxlab.telemetry.record import Compaction, ErrorInfo, Kind, ToolCall, TurnRecord

if TYPE_CHECKING:  # the SDK's type, for the annotations only: the SDK takes a second to import
    from anthropic.types import Usage


@dataclass(frozen=True)
class UsageParts:
    """The disjoint parts of one call's usage, with every missing field read as 0."""

    input_tokens: int
    output_tokens: int
    cache_read: int
    write_5m: int
    write_1h: int
    batch: bool = False  # ``service_tier`` "batch": a Message Batch request, at half price

    @property
    def cache_write(self) -> int:
        return self.write_5m + self.write_1h

    @property
    def total_input(self) -> int:
        return self.input_tokens + self.cache_read + self.cache_write


def _field(source: Any, name: str) -> int:
    value = source.get(name) if isinstance(source, Mapping) else getattr(source, name, None)
    return int(value or 0)


def usage_parts(usage: Usage | Mapping[str, Any] | None) -> UsageParts:
    """Normalise an SDK ``Usage`` or a plain usage dict (None gives all zeros).

    When ``cache_creation_input_tokens`` exceeds the TTL breakdown (or there is no breakdown),
    the rest is counted as a 5-minute write, the default TTL.
    """
    if usage is None:
        return UsageParts(0, 0, 0, 0, 0)
    split = usage.get("cache_creation") if isinstance(usage, Mapping) else usage.cache_creation
    write_5m = _field(split, "ephemeral_5m_input_tokens") if split is not None else 0
    write_1h = _field(split, "ephemeral_1h_input_tokens") if split is not None else 0
    unsplit = _field(usage, "cache_creation_input_tokens") - write_5m - write_1h
    return UsageParts(
        input_tokens=_field(usage, "input_tokens"),
        output_tokens=_field(usage, "output_tokens"),
        cache_read=_field(usage, "cache_read_input_tokens"),
        write_5m=write_5m + max(unsplit, 0),
        write_1h=write_1h,
        batch=_tier(usage) == "batch",
    )


def _tier(usage: Usage | Mapping[str, Any]) -> Any:
    return usage.get("service_tier") if isinstance(usage, Mapping) else getattr(
        usage, "service_tier", None)


def record_from_usage(
    turn: int,
    kind: Kind,
    usage: Usage | Mapping[str, Any] | None,
    *,
    model: str,
    messages_sent: int,
    estimated_tokens: int,
    tool_calls: Iterable[ToolCall] = (),
    compactions: Iterable[Compaction] = (),
    thrash: bool = False,
    error: ErrorInfo | None = None,
    clock: float = 0.0,
) -> TurnRecord:
    """One call's record: total input, cost from the model table, occupancy of the window.

    Pass ``usage=None`` with an ``error`` for a call the API rejected: it is recorded (it
    counts as a failure) but bills nothing.
    """
    spec = models.get(model)
    parts = usage_parts(usage)
    cost = models.cost_usd(spec, input_tokens=parts.input_tokens,
                           output_tokens=parts.output_tokens, cache_read=parts.cache_read,
                           write_5m=parts.write_5m, write_1h=parts.write_1h, batch=parts.batch)
    return TurnRecord(
        turn=turn,
        kind=kind,
        model=spec.id,
        messages=messages_sent,
        estimated_tokens=estimated_tokens,
        reported_input_tokens=parts.total_input,
        input_tokens=parts.input_tokens,
        cache_read_tokens=parts.cache_read,
        cache_write_tokens=parts.cache_write,
        cache_write_5m=parts.write_5m,
        cache_write_1h=parts.write_1h,
        output_tokens=parts.output_tokens,
        cost_usd=cost,
        occupancy=parts.total_input / spec.context_window,
        tool_calls=list(tool_calls),
        compactions=list(compactions),
        thrash=thrash,
        error=error,
        clock=clock,
    )
