"""Cache-break attribution: compaction, TTL expiry, or a prefix we changed (§12.6)."""

from __future__ import annotations

import pytest

from ctxlab.telemetry import TurnRecord, cache_breaks


def _record(turn: int, read: int, write: int, clock: float, compactions=()) -> TurnRecord:
    return TurnRecord(turn=turn, kind="agent", model="claude-haiku-4-5", messages=2 * turn,
                      estimated_tokens=0, reported_input_tokens=read + write + 10,
                      input_tokens=10, cache_read_tokens=read, cache_write_tokens=write,
                      cache_write_5m=write, cache_write_1h=0, output_tokens=5, cost_usd=0.0,
                      occupancy=0.1, tool_calls=[], compactions=list(compactions), thrash=False,
                      error=None, clock=clock)


def test_steady_reads_are_not_breaks() -> None:
    records = [_record(1, 0, 5_000, 1), _record(2, 5_000, 400, 2), _record(3, 5_400, 400, 3)]
    assert cache_breaks(records) == []


@pytest.mark.checklist("B.9", "B.34")
def test_three_causes_are_told_apart() -> None:
    records = [
        _record(1, 0, 5_000, 1),
        _record(2, 0, 5_400, 2),  # nothing explains it: our prefix moved
        _record(3, 5_400, 300, 3),
        _record(4, 0, 5_800, 600),  # ten minutes idle
        _record(5, 200, 4_000, 601, [{"layer": "microcompact", "tokens_freed": 2_000,
                                       "trigger": "x"}]),
    ]
    found = {b["turn"]: (b["cause"], b["alert"]) for b in cache_breaks(records)}
    assert found == {2: ("prefix changed (our bug)", True), 4: ("ttl expiry (idle)", False),
                     5: ("compaction (expected)", False)}


def test_offloading_new_results_does_not_explain_a_break() -> None:
    offload = [{"layer": "offload", "tokens_freed": 900, "trigger": "x"}]
    records = [_record(1, 0, 5_000, 1), _record(2, 0, 5_400, 2, offload)]
    assert [b["cause"] for b in cache_breaks(records)] == ["prefix changed (our bug)"]


@pytest.mark.checklist("B.9")
def test_a_compaction_excuses_its_own_break_not_a_later_one() -> None:
    summary = [{"layer": "summary", "tokens_freed": 4_000, "trigger": "x"}]
    records = [_record(1, 0, 5_000, 1), _record(2, 0, 2_000, 2, summary),
               _record(3, 2_000, 300, 3), _record(4, 2_300, 300, 4), _record(5, 0, 2_900, 5)]
    found = [(b["turn"], b["cause"], b["alert"]) for b in cache_breaks(records)]
    assert found == [(2, "compaction (expected)", False), (5, "prefix changed (our bug)", True)]
