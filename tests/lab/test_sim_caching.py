"""Prompt caching, R16–R26 (API notes §1, §8), on both transports, on the simulated clock.

Expected token positions are measured with ``count_tokens`` on truncated copies of a request
(rendering is additive: a prefix of the blocks counts as the prefix's tokens), never taken from
the simulator's internals.
"""

from __future__ import annotations

import base64
import struct
from typing import Any

import anthropic
import pytest
from simcheck import (
    api_error,
    assert_usage_ok,
    assistant,
    cached,
    count,
    create,
    dump,
    text,
    tool,
    tool_result,
    tool_use,
    user,
)

from ctxlab import models
from ctxlab.sim import Latency

OPUS5 = "claude-opus-5"  # cache minimum 512 tokens
HAIKU = "claude-haiku-4-5"  # cache minimum 4096 tokens


def body(*messages: dict[str, Any], model: str = OPUS5, **extra: Any) -> dict[str, Any]:
    return {"model": model, "max_tokens": 64, "messages": list(messages), **extra}


def send(client: anthropic.Anthropic, request: dict[str, Any]) -> tuple[int, int, int]:
    """(read, creation, input_tokens) of one checked call."""
    message = create(client, request)
    assert_usage_ok(client, request, message)
    usage = message.usage
    return usage.cache_read_input_tokens, usage.cache_creation_input_tokens, usage.input_tokens


def png(width: int, height: int) -> dict[str, Any]:
    """An image block whose PNG header gives its size (the pixels are not needed)."""
    header = (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR"
              + struct.pack(">II", width, height) + b"\x08\x02\x00\x00\x00")
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": base64.b64encode(header).decode()}}


# R16 / R23 — what joins the cache key, and which tiers a change invalidates

TOOLS = [{**tool("read_file", text(600, "tool")), "cache_control": {"type": "ephemeral"}}]
SYSTEM = [cached(text(600, "system"))]


def tiered(**changes: Any) -> dict[str, Any]:
    """Three tiers, each ending in a breakpoint: tools, system, one user block."""
    request = body(user(cached(text(600, "message"))), tools=TOOLS, system=SYSTEM)
    return {**request, **changes}


def tiers(client: anthropic.Anthropic, request: dict[str, Any]) -> dict[str, int]:
    """Token position of the end of each tier of ``request`` ("all": its first message block)."""
    probe = {"model": request["model"], "messages": [user("x")]}
    base = count(client, probe)
    keep = {k: request[k] for k in ("tool_choice", "thinking") if k in request}
    return {
        "none": 0,
        "tools": count(client, {**probe, **keep, "tools": request["tools"]}) - base,
        "system": count(client, {**probe, **keep, "tools": request["tools"],
                                 "system": request["system"]}) - base,
        "all": count(client, {**request, "messages": [user(request["messages"][0]["content"][0])]}),
    }


def _with_image_in_result(request: dict[str, Any]) -> dict[str, Any]:
    return {**request, "messages": [*request["messages"][:-1], user(tool_result(
        "toolu_1", [{"type": "text", "text": "screenshot"}, png(200, 100)]))]}


CHANGES = {
    # change -> (how, which tier still hits)
    "tool definition": (lambda r: {**r, "tools": [{**TOOLS[0], "description": "changed"}]},
                        "none"),
    "model": (lambda r: {**r, "model": "claude-sonnet-5"}, "none"),
    "speed": (lambda r: {**r, "speed": "fast"}, "tools"),
    "citations": (lambda r: {**r, "messages": [user(r["messages"][0]["content"][0], {
        "type": "document", "source": {"type": "text", "media_type": "text/plain",
                                       "data": "A cited note."},
        "citations": {"enabled": True}})]}, "tools"),
    "system": (lambda r: {**r, "system": [cached(text(600, "other system"))]}, "tools"),
    "tool_choice": (lambda r: {**r, "tool_choice": {"type": "any"}}, "system"),
    "disable_parallel_tool_use": (lambda r: {**r, "tool_choice": {
        "type": "auto", "disable_parallel_tool_use": True}}, "system"),
    "thinking": (lambda r: {**r, "thinking": {"type": "adaptive"}}, "system"),
    "effort": (lambda r: {**r, "output_config": {"effort": "low"}}, "system"),
    "image": (lambda r: {**r, "messages": [user(r["messages"][0]["content"][0], png(64, 64))]},
              "system"),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_r23_invalidation_tiers(client, change):
    how, keeps = CHANGES[change]
    first = tiered()
    assert send(client, first)[:2] == (0, tiers(client, first)["all"])
    changed = how(first)
    read, creation, _ = send(client, changed)
    expected = tiers(client, changed)
    assert read == expected[keeps]
    assert creation == expected["all"] - expected[keeps]


def test_r16_image_inside_a_tool_result_counts_as_an_image(client):
    first = tiered(messages=[user(cached(text(600, "message"))), assistant(tool_use("toolu_1")),
                             user(tool_result("toolu_1", "no screenshot"))])
    send(client, first)
    read, _, _ = send(client, _with_image_in_result(first))
    assert read == tiers(client, first)["system"]  # not the user block before the result


@pytest.mark.parametrize("default", [
    {"tool_choice": {"type": "auto"}},
    {"tool_choice": {"type": "auto", "disable_parallel_tool_use": False}},
    {"thinking": {"type": "disabled"}},
    {"output_config": {"effort": "high"}},
    {"speed": "standard"},
])
def test_r16_parameter_at_its_default_equals_omitting_it(client, default):
    first = tiered()
    send(client, first)
    read, creation, _ = send(client, tiered(**default))
    assert (read, creation) == (count(client, first), 0)


# R17 — minimum cacheable prefix

@pytest.mark.parametrize("words, writes", [(4092, False), (4093, True)])
def test_r17_minimum_cacheable_prefix(client, words, writes):
    request = body(user(cached(text(words, "r17"))), model=HAIKU)
    total = count(client, request)
    assert total == words + 3 and (total >= 4096) == writes
    expected = (0, total, 0) if writes else (0, 0, total)
    assert send(client, request) == expected
    again = (total, 0, 0) if writes else (0, 0, total)  # below the minimum: never a read either
    assert send(client, request) == again


# R18 / R22 — 20-position lookback per breakpoint, longest hit wins

POOL = [text(120, f"block-{k}") for k in range(40)]


def blocks(n: int, marks: set[int], pool: list[str] = POOL) -> dict[str, Any]:
    """One user message with the first ``n`` pool blocks, breakpoints on 1-based ``marks``."""
    parts = [cached(b) if k + 1 in marks else b for k, b in enumerate(pool[:n])]
    return body(user(*parts))


def position(client: anthropic.Anthropic, n: int, pool: list[str] = POOL) -> int:
    """Token position of the end of block ``n`` (1-based)."""
    return count(client, blocks(n, set(), pool)) if n else 0


@pytest.mark.parametrize("distance, hits", [(19, True), (20, False)])
def test_r18_lookback_is_20_positions_counting_the_breakpoint(client, distance, hits):
    send(client, blocks(5, {5}))
    n = 5 + distance
    read, creation, _ = send(client, blocks(n, {n}))
    assert read == (position(client, 5) if hits else 0)
    assert creation == position(client, n) - read


def test_r18_longest_hit_across_breakpoints(client):
    send(client, blocks(5, {5}))
    send(client, blocks(12, {12}))
    read, creation, _ = send(client, blocks(21, {5, 20}))
    assert read == position(client, 12)  # found walking back from block 20
    assert creation == position(client, 20) - position(client, 12)


@pytest.mark.parametrize("extra_breakpoint", [False, True])
def test_r22_ten_fifteen_thirty_five_blocks(client, extra_breakpoint):
    pool = [text(60, f"r22-{k}") for k in range(35)]
    assert send(client, blocks(10, {10}, pool))[:2] == (0, position(client, 10, pool))
    read, creation, _ = send(client, blocks(15, {15}, pool))
    assert (read, creation) == (position(client, 10, pool),
                                position(client, 15, pool) - position(client, 10, pool))
    marks = {15, 35} if extra_breakpoint else {35}
    read, creation, _ = send(client, blocks(35, marks, pool))
    expected = position(client, 15, pool) if extra_breakpoint else 0
    assert (read, creation) == (expected, position(client, 35, pool) - expected)


# R19 — the usage partition with mixed TTLs

def test_r19_partition_one_hour_then_five_minutes(client):
    pool = [text(300, f"r19-{k}") for k in range(8)]
    request = blocks(7, {2, 5}, pool)
    request["messages"][0]["content"][1]["cache_control"]["ttl"] = "1h"
    message = create(client, request)
    total = assert_usage_ok(client, request, message)
    p2, p5 = position(client, 2, pool), position(client, 5, pool)
    usage = message.usage
    assert usage.cache_read_input_tokens == 0
    assert usage.cache_creation.ephemeral_1h_input_tokens == p2
    assert usage.cache_creation.ephemeral_5m_input_tokens == p5 - p2
    assert usage.input_tokens == total - p5
    again = create(client, request).usage  # the hit at block 5 is above the 1h breakpoint
    assert (again.cache_read_input_tokens, again.cache_creation.ephemeral_1h_input_tokens,
            again.cache_creation.ephemeral_5m_input_tokens) == (p5, 0, 0)


def test_r19_partition_read_then_one_hour_then_five_minutes(client):
    pool = [text(300, f"r19b-{k}") for k in range(8)]
    first = blocks(8, {2}, pool)
    first["messages"][0]["content"][1]["cache_control"]["ttl"] = "1h"
    send(client, first)
    second = blocks(8, {2, 4, 6}, pool)
    for k in (1, 3):
        second["messages"][0]["content"][k]["cache_control"]["ttl"] = "1h"
    message = create(client, second)
    total = assert_usage_ok(client, second, message)
    a, b, c = (position(client, n, pool) for n in (2, 4, 6))
    usage = message.usage
    assert usage.cache_read_input_tokens == a
    assert usage.cache_creation.ephemeral_1h_input_tokens == b - a
    assert usage.cache_creation.ephemeral_5m_input_tokens == c - b
    assert usage.input_tokens == total - c


# R20 — two identical requests

def test_r20_identical_requests(client):
    request = tiered()
    total = count(client, request)
    first = send(client, request)
    second = send(client, request)
    c = total - first[2]
    assert first == (0, c, total - c) and second == (c, 0, total - c)


# R21 — TTL on the simulated clock

def test_r21_five_minute_entry_expires_and_hits_refresh_it(sim, client):
    sim.auto_advance = False
    request = tiered()
    c = send(client, request)[1]
    sim.clock.advance(299)
    assert send(client, request)[:2] == (c, 0)  # read at t=299 ...
    sim.clock.advance(299)
    assert send(client, request)[:2] == (c, 0)  # ... refreshed it past t=300
    sim.clock.advance(300)
    assert send(client, request)[:2] == (0, c)  # exactly 5 minutes after the last read


def test_r21_one_hour_entry_outlives_five_minute_entry(sim, client):
    sim.auto_advance = False
    pool = [text(300, f"r21-{k}") for k in range(4)]
    request = blocks(4, {2, 4}, pool)
    request["messages"][0]["content"][1]["cache_control"]["ttl"] = "1h"
    send(client, request)
    p2, p4 = position(client, 2, pool), position(client, 4, pool)
    sim.clock.advance(3599)
    assert send(client, request)[:2] == (p2, p4 - p2)  # the 5m entry is gone, the 1h one is not
    sim.clock.advance(3600)
    assert send(client, request)[:2] == (0, p4)


def test_r21_lifetime_counts_from_the_start_of_the_request(sim, client):
    sim.latency = Latency(first_token_s=5.0, tokens_per_s=1.0)  # each call takes a while
    request = tiered()
    start = sim.clock.now
    c = send(client, request)[1]
    assert sim.clock.now - start > 5
    sim.clock.advance(start + 300 - sim.clock.now)  # exactly 300 s after the writer started
    assert send(client, request)[:2] == (0, c)


def test_r21_parallel_request_does_not_see_an_entry_before_the_response_begins(sim, client):
    sim.auto_advance = False
    request = tiered()
    c = send(client, request)[1]
    assert send(client, request)[:2] == (0, c)  # sent at the same instant: no hit
    sim.clock.advance(sim.latency.first_token_s)
    assert send(client, request)[:2] == (c, 0)


# R24 — automatic caching (top-level cache_control)

def test_r24_automatic_breakpoint_on_the_last_block_moves_forward(client):
    turn1 = body(user(text(700, "auto")), cache_control={"type": "ephemeral"})
    total1 = count(client, turn1)
    assert send(client, turn1) == (0, total1, 0)
    reply = create(client, turn1)
    assert_usage_ok(client, turn1, reply)
    turn2 = {**turn1, "messages": [*turn1["messages"], assistant(*dump(reply.content)),
                                   user("And then?")]}
    total2 = count(client, turn2)
    assert send(client, turn2) == (total1, total2 - total1, 0)


def test_r24_noop_when_the_last_block_already_has_the_same_ttl(client):
    request = body(user(*[cached(text(200, f"noop-{k}")) for k in range(4)]),
                   cache_control={"type": "ephemeral", "ttl": "5m"})
    total = count(client, request)
    assert send(client, request) == (0, total, 0)


def test_r24_conflicting_ttl_on_the_last_block(client):
    request = body(user(cached(text(700, "ttl"), "1h")), cache_control={"type": "ephemeral"})
    with api_error(anthropic.BadRequestError, 400,
                   "cache_control: the last cacheable block already has a cache_control with a "
                   "different ttl"):
        create(client, request)


def test_r24_no_slot_left_for_the_automatic_breakpoint(client):
    request = body(user(*[cached(f"part {k}") for k in range(4)], "tail"),
                   cache_control={"type": "ephemeral"})
    with api_error(anthropic.BadRequestError, 400,
                   "A maximum of 4 blocks with cache_control may be provided. Found 5."):
        create(client, request)


def test_r24_walks_back_over_a_trailing_thinking_block(client):
    first = body(user(text(4200, "walk")), model=HAIKU, max_tokens=2048,
                 thinking={"type": "enabled", "budget_tokens": 1024})
    reply = create(client, first)
    assert_usage_ok(client, first, reply)
    thought = dump(reply.content)[0]
    assert thought["type"] == "thinking"
    prefill = {**first, "messages": [*first["messages"], assistant(thought)],
               "cache_control": {"type": "ephemeral"}}
    user_part = count(client, first)
    total = count(client, prefill)
    assert total > user_part
    assert send(client, prefill) == (0, user_part, total - user_part)


# R25 — pre-warming with max_tokens 0

def test_r25_max_tokens_zero_prewarms_the_cache(client):
    request = tiered(max_tokens=0)
    message = create(client, request)
    total = assert_usage_ok(client, request, message)
    assert message.content == [] and message.stop_reason == "max_tokens"
    assert message.usage.output_tokens == 0
    c = message.usage.cache_creation_input_tokens
    assert c == count(client, request) == total
    assert send(client, tiered()) == (c, 0, 0)


# R26 — cost from the per-model price table

@pytest.mark.parametrize("model, prices", [
    (OPUS5, (5.0, 25.0, 6.25, 10.0, 0.50)),  # the default 1.25x / 2x / 0.1x multipliers
    ("claude-sonnet-5-5", (2.0, 10.0, 2.50, 4.0, 0.10)),  # cache read override (§1.7)
])
def test_r26_cost_uses_the_model_price_table(client, model, prices):
    pool = [text(400, f"r26-{k}") for k in range(6)]
    first = {**blocks(3, {3}, pool), "model": model}
    first["messages"][0]["content"][2]["cache_control"]["ttl"] = "1h"
    create(client, first)
    second = {**blocks(6, {3, 5}, pool), "model": model}
    second["messages"][0]["content"][2]["cache_control"]["ttl"] = "1h"
    message = create(client, second)
    assert_usage_ok(client, second, message)
    u = message.usage
    assert u.cache_read_input_tokens and u.cache_creation_input_tokens and u.input_tokens
    cost = models.cost_usd(models.get(model), input_tokens=u.input_tokens,
                           output_tokens=u.output_tokens, cache_read=u.cache_read_input_tokens,
                           write_5m=u.cache_creation.ephemeral_5m_input_tokens,
                           write_1h=u.cache_creation.ephemeral_1h_input_tokens)
    price_in, price_out, price_5m, price_1h, price_read = prices
    expected = (u.input_tokens * price_in + u.output_tokens * price_out
                + u.cache_creation.ephemeral_5m_input_tokens * price_5m
                + u.cache_creation.ephemeral_1h_input_tokens * price_1h
                + u.cache_read_input_tokens * price_read) / 1_000_000
    assert cost == pytest.approx(expected, rel=1e-12)
