"""Per-call records from API usage: totals, cost from the model table, occupancy (§12.6)."""

from __future__ import annotations

import anthropic
import httpx2
import pytest
from anthropic.types import CacheCreation, Usage

from ctxlab import models
from ctxlab.telemetry import error_info, input_hash, record_from_usage, tool_call

# The documented usage example: 2048 uncached, 1800 read, 248 written (148 at 5m, 100 at 1h).
USAGE = {
    "input_tokens": 2048,
    "output_tokens": 500,
    "cache_read_input_tokens": 1800,
    "cache_creation_input_tokens": 248,
    "cache_creation": {"ephemeral_5m_input_tokens": 148, "ephemeral_1h_input_tokens": 100},
}
HAIKU = "claude-haiku-4-5"  # $1 in, $5 out, $1.25 5m write, $2 1h write, $0.10 read per MTok


def record(usage, **kw):
    return record_from_usage(3, "agent", usage, model=HAIKU, messages_sent=7,
                             estimated_tokens=3900, **kw)


def test_dict_usage_gives_totals_cost_and_occupancy() -> None:
    r = record(USAGE)
    assert (r.input_tokens, r.cache_read_tokens, r.cache_write_tokens) == (2048, 1800, 248)
    assert (r.cache_write_5m, r.cache_write_1h, r.output_tokens) == (148, 100, 500)
    assert r.reported_input_tokens == 4096
    assert r.total_tokens == 4596
    # 2048*1 + 500*5 + 1800*0.1 + 148*1.25 + 100*2 = 5113 dollars per million tokens
    assert r.cost_usd == pytest.approx(5113 / 1_000_000)
    assert r.occupancy == pytest.approx(4096 / 200_000)
    assert (r.turn, r.kind, r.messages, r.estimated_tokens) == (3, "agent", 7, 3900)


def test_sdk_usage_object_gives_the_same_record() -> None:
    usage = Usage(input_tokens=2048, output_tokens=500, cache_read_input_tokens=1800,
                  cache_creation_input_tokens=248,
                  cache_creation=CacheCreation(ephemeral_5m_input_tokens=148,
                                               ephemeral_1h_input_tokens=100))
    assert record(usage).to_dict() == record(USAGE).to_dict()


def test_batch_tier_usage_is_billed_at_half_price() -> None:
    """docs (batch processing): all usage at 50 %, the cache multipliers stacked on it."""
    batch = {**USAGE, "service_tier": "batch"}
    assert record(batch).cost_usd == pytest.approx(5113 / 1_000_000 * 0.5)
    sdk = Usage(**{**USAGE, "cache_creation": CacheCreation(**USAGE["cache_creation"])},
                service_tier="batch")
    assert record(sdk).cost_usd == record(batch).cost_usd
    assert record({**USAGE, "service_tier": "standard"}).cost_usd == record(USAGE).cost_usd
    assert models.BATCH_DISCOUNT == 0.5


def test_missing_and_none_optional_fields_count_as_zero() -> None:
    sparse = record({"input_tokens": 120, "output_tokens": 30, "cache_read_input_tokens": None})
    sdk = record(Usage(input_tokens=120, output_tokens=30))
    for r in (sparse, sdk):
        assert r.reported_input_tokens == 120
        assert r.cache_read_tokens == r.cache_write_tokens == 0
        assert r.cost_usd == pytest.approx((120 * 1 + 30 * 5) / 1_000_000)


def test_cache_write_without_ttl_split_is_billed_as_5m() -> None:
    r = record({"input_tokens": 10, "output_tokens": 0, "cache_creation_input_tokens": 1000})
    assert (r.cache_write_5m, r.cache_write_1h, r.cache_write_tokens) == (1000, 0, 1000)
    assert r.cost_usd == pytest.approx((10 + 1000 * 1.25) / 1_000_000)


def test_cost_and_window_follow_the_model_table() -> None:
    spec = models.get("claude-sonnet-4-6")
    r = record_from_usage(1, "summary", USAGE, model="claude-sonnet-4-6", messages_sent=1,
                          estimated_tokens=0)
    expected = models.cost_usd(spec, input_tokens=2048, output_tokens=500, cache_read=1800,
                               write_5m=148, write_1h=100)
    assert r.cost_usd == pytest.approx(expected)
    assert r.occupancy == pytest.approx(4096 / spec.context_window)


def test_alias_is_recorded_under_the_canonical_id_and_unknown_model_fails() -> None:
    r = record_from_usage(1, "agent", USAGE, model="claude-haiku-4-5-20251001",
                          messages_sent=1, estimated_tokens=0)
    assert r.model == HAIKU
    with pytest.raises(KeyError, match="unknown model"):
        record_from_usage(1, "agent", USAGE, model="gpt-x", messages_sent=1, estimated_tokens=0)


def test_rejected_call_is_recorded_with_its_error_and_bills_nothing() -> None:
    err = {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > "
           "200000 maximum"}
    r = record(None, error=err, clock=12.5)
    assert r.error == err and r.clock == 12.5
    assert r.reported_input_tokens == r.output_tokens == 0 and r.cost_usd == 0.0


def test_input_hash_is_stable_short_and_order_independent() -> None:
    a = input_hash({"path": "src/app.py", "limit": 50})
    assert a == input_hash({"limit": 50, "path": "src/app.py"})
    assert a != input_hash({"path": "src/app.py", "limit": 51})
    assert len(a) == 12
    assert tool_call("read_file", {"path": "x"}) == {"name": "read_file",
                                                      "input_hash": input_hash({"path": "x"})}


def test_error_info_keeps_the_api_error_type() -> None:
    response = httpx2.Response(400, request=httpx2.Request("POST", "http://sim/v1/messages"))
    body = {"type": "error", "error": {"type": "invalid_request_error",
                                       "message": "prompt is too long: 5 tokens > 4 maximum"}}
    exc = anthropic.BadRequestError("Error code: 400", response=response, body=body)
    assert error_info(exc) == body["error"]
    assert error_info(ValueError("boom")) == {"type": "ValueError", "message": "boom"}
