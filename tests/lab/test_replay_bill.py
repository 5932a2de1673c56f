"""The replay's bill: full price without zones, the shared prefix read from cache with them
(§12.1, §5; API notes R17, R19, R26). Prices: claude-haiku-4-5, $1 / $5 per MTok, cache read
0.1×, 5-minute write 1.25×, 1-hour write 2×, cache minimum 4,096 tokens."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ctxlab.replay.bill import Bill


def test_a_shared_prefix_is_read_from_cache_and_the_rest_written() -> None:
    bill = Bill("claude-haiku-4-5")
    bill.add(10_000, 0, 100)  # first request: everything is written
    bill.add(12_000, 10_000, 100)  # 10K read, 2K written
    assert bill.without_zones_usd == pytest.approx((10_000 + 500 + 12_000 + 500) / 1e6)
    assert bill.with_zones_usd == pytest.approx((12_500 + 500 + 1_000 + 2_500 + 500) / 1e6)
    assert (bill.cache_read_tokens, bill.cache_write_tokens) == (10_000, 12_000)
    assert bill.saving == pytest.approx(1 - 17_000 / 23_000)


def test_a_rewritten_prefix_is_paid_again() -> None:
    kept, rewritten = Bill("claude-haiku-4-5"), Bill("claude-haiku-4-5")
    for bill, shared in ((kept, 20_000), (rewritten, 1_000)):
        bill.add(20_000, 0, 0)
        bill.add(21_000, shared, 0)
    assert rewritten.with_zones_usd > kept.with_zones_usd
    assert rewritten.without_zones_usd == kept.without_zones_usd


def test_requests_below_the_cache_minimum_are_never_cached() -> None:
    bill = Bill("claude-haiku-4-5")
    bill.add(3_000, 0, 0)
    bill.add(3_500, 3_000, 0)
    assert bill.with_zones_usd == pytest.approx(bill.without_zones_usd)
    assert bill.cache_read_tokens == bill.cache_write_tokens == 0


def test_the_logs_own_usage_and_summary_calls_are_priced_on_their_own() -> None:
    bill = Bill("claude-haiku-4-5")
    bill.add_recorded({"input_tokens": 3, "cache_read_input_tokens": 1_000,
                       "cache_creation_input_tokens": 2_000, "output_tokens": 10,
                       "cache_creation": {"ephemeral_1h_input_tokens": 500}})
    assert bill.recorded_usd == pytest.approx((3 + 100 + 1_500 * 1.25 + 500 * 2 + 50) / 1e6)
    bill.add_summary(SimpleNamespace(input_tokens=4_000, output_tokens=200,
                                     cache_read_input_tokens=None,
                                     cache_creation_input_tokens=None))
    assert (bill.summary_calls, bill.summary_usd) == (1, pytest.approx(5_000 / 1e6))
    assert bill.to_dict()["requests"] == 0 and "_cached" not in bill.to_dict()
