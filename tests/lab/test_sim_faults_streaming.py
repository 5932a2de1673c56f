"""count_tokens (R37), injected faults and SDK retries (R38–R41), streaming (R42).

Retries are the SDK's own: these tests count the attempts that reached the simulator and read
the ``x-stainless-retry-count`` header each one carried.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest
from simcheck import (
    ToolLoop,
    api_error,
    assert_usage_ok,
    assistant,
    cached,
    count,
    create,
    dump,
    sse_events,
    text,
    tool,
    tool_result,
    user,
)

HAIKU = "claude-haiku-4-5"
OPUS5 = "claude-opus-5"
RATE_LIMITED = (  # with no limits set, an injected 429 names the Start tier's ITPM
    "This request would exceed the rate limit for your organization (org-simulated) of "
    "2,000,000 input tokens per minute. For details, refer to: "
    "https://docs.claude.com/en/api/rate-limits. You can see the response headers for current "
    "usage. Please reduce the prompt length or the maximum tokens requested, or try again later. "
    "You may also contact sales at https://www.anthropic.com/contact-sales to discuss your "
    "options for a rate limit increase.")


HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}


def body(*messages: dict[str, Any], model: str = HAIKU, **extra: Any) -> dict[str, Any]:
    return {"model": model, "max_tokens": 256, "messages": list(messages), **extra}


@pytest.fixture
def attempts(sim, monkeypatch) -> list[dict[str, str]]:
    """Headers of every request that reached the simulator, in order."""
    seen: list[dict[str, str]] = []
    handle = sim.handle

    def spy(method: str, path: str, headers: dict[str, str], raw: bytes) -> Any:
        seen.append({k.lower(): v for k, v in headers.items()})
        return handle(method, path, headers, raw)

    monkeypatch.setattr(sim, "handle", spy)
    return seen


def retry_counts(seen: list[dict[str, str]]) -> list[str]:
    return [h.get("x-stainless-retry-count", "?") for h in seen]


# R37 — count_tokens

def test_r37_count_tokens_equals_create_total_and_ignores_the_cache(client):
    request = body(user(cached(text(5_000, "r37")), "question"), system=[cached("Be brief.")],
                   tools=[tool("read_file")])
    counted = count(client, request)
    for _ in range(2):  # a write, then a read: the count does not move
        message = create(client, request)
        assert assert_usage_ok(client, request, message) == counted
        assert count(client, request) == counted
    assert message.usage.cache_read_input_tokens > 0


def test_r37_prior_turn_thinking_is_not_counted(client):
    thinking = {"type": "enabled", "budget_tokens": 1024}
    first = body(user("Plan it."), max_tokens=2048, thinking=thinking)
    reply = create(client, first)
    content = dump(reply.content)
    assert content[0]["type"] == "thinking"
    later = {**first, "messages": [*first["messages"], assistant(*content), user("Go on.")]}
    without = {**first, "messages": [*first["messages"], assistant(*content[1:]),
                                     user("Go on.")]}
    assert count(client, later) == count(client, without)
    assert_usage_ok(client, later, create(client, later))


def test_r37_current_turn_thinking_is_counted(sim, client):
    sim.responder = ToolLoop(steps=1)
    first = body(user("Read it."), max_tokens=2048, tools=[tool("read_file")],
                 thinking={"type": "enabled", "budget_tokens": 1024})
    reply = create(client, first)
    content = dump(reply.content)
    assert [b["type"] for b in content] == ["thinking", "tool_use"]
    result = user(tool_result(content[1]["id"], "file body"))
    within = {**first, "messages": [*first["messages"], assistant(*content), result]}
    stripped = {**first, "messages": [*first["messages"], assistant(content[1]), result]}
    assert count(client, within) == count(client, stripped) + 150  # the thought's tokens
    assert_usage_ok(client, within, create(client, within))


def test_every_response_carries_a_request_id(client):
    request = body(user("hi"))
    raw = client.messages.with_raw_response.create(**request)
    message = raw.parse()
    assert raw.headers["request-id"].startswith("req_") and message._request_id == raw.headers[
        "request-id"]
    counted = client.messages.with_raw_response.count_tokens(messages=[user("hi")], model=HAIKU)
    assert counted.headers["request-id"].startswith("req_")
    assert_usage_ok(client, request, message)


# R38 — 429 with retry-after

def test_r38_rate_limit_retried_then_raised(sim, connect, attempts):
    sim.faults.add("rate_limit", count=3, retry_after=1)
    client = connect(max_retries=2)
    with api_error(anthropic.RateLimitError, 429, RATE_LIMITED, error_type="rate_limit_error"):
        create(client, body(user("hi")))
    assert [c.status for c in sim.calls] == [429, 429, 429]
    assert retry_counts(attempts) == ["0", "1", "2"]


def test_r38_retry_after_header_and_recovery(sim, connect, attempts, slept):
    sim.faults.add("rate_limit", count=2, retry_after=1)
    client = connect(max_retries=2)
    request = body(user("hi"))
    message = create(client, request)
    assert slept == [1, 1]  # the SDK waited exactly retry-after, twice
    assert [c.status for c in sim.calls] == [429, 429, 200]
    assert retry_counts(attempts) == ["0", "1", "2"]
    assert_usage_ok(client, request, message)
    sim.faults.add("rate_limit", count=1, retry_after=0.01)
    with pytest.raises(anthropic.RateLimitError) as info:
        create(connect(max_retries=0), request)
    assert info.value.response.headers["retry-after"] == "1"  # whole seconds, as the API


# R39 — 529 overloaded

def test_r39_overloaded_after_three_attempts(sim, connect, attempts):
    sim.faults.add("overloaded", count=3)
    with api_error(anthropic.OverloadedError, 529, "Overloaded", error_type="overloaded_error"):
        create(connect(max_retries=2), body(user("hi")))
    assert [c.status for c in sim.calls] == [529, 529, 529]
    assert retry_counts(attempts) == ["0", "1", "2"]
    assert issubclass(anthropic.OverloadedError, anthropic.InternalServerError)


def test_r39_should_retry_false_means_one_attempt(sim, connect):
    sim.faults.add("overloaded", count=3, should_retry=False)
    with pytest.raises(anthropic.OverloadedError) as info:
        create(connect(max_retries=2), body(user("hi")))
    assert info.value.response.headers["x-should-retry"] == "false"
    assert len(sim.calls) == 1


def test_r39_internal_server_error(sim, connect):
    sim.faults.add("server_error", count=2)
    with api_error(anthropic.InternalServerError, 500, "Internal server error",
                   error_type="api_error"):
        create(connect(max_retries=1), body(user("hi")))
    assert [c.status for c in sim.calls] == [500, 500]


def test_r39_timeout(sim, connect, transport):
    sim.faults.add("timeout", count=1)
    client = connect(max_retries=0, timeout=0.3)  # the HTTP server hangs for 1 s
    with pytest.raises(anthropic.APITimeoutError):
        create(client, body(user("hi")))
    assert [(c.status, c.error) for c in sim.calls] == [(0, "timeout")]
    request = body(user("hi"))  # the fault is spent: the next call answers
    assert_usage_ok(client, request, create(client, request))


# R40 — a 400 is never retried

def test_r40_bad_request_is_not_retried(sim, connect, attempts):
    with pytest.raises(anthropic.BadRequestError):
        create(connect(max_retries=2), body(assistant("hi")))
    assert len(sim.calls) == 1 and retry_counts(attempts) == ["0"]


# R41 — a failure after the stream started

def test_r41_mid_stream_error_is_raised_with_status_200_and_not_retried(sim, connect):
    sim.faults.add("midstream", count=1)
    client = connect(max_retries=2)
    with (pytest.raises(anthropic.APIStatusError) as info,
          client.messages.stream(**body(user("hi"))) as stream):
        stream.get_final_message()
    error = info.value
    assert error.status_code == 200
    assert not isinstance(error, anthropic.InternalServerError)
    assert error.body["error"] == {"type": "overloaded_error", "message": "Overloaded"}
    assert error.type == "overloaded_error"
    assert len(sim.calls) == 1


def test_r41_mid_stream_frames_end_with_the_error(sim):
    sim.faults.add("midstream", count=1)
    raw = json.dumps({**body(user("hi")), "stream": True}).encode()
    answer = sim.handle("POST", "/v1/messages", HEADERS, raw)
    assert answer.status == 200
    events = [name for name, _ in sse_events(answer.body)]
    assert events[-1] == "error" and events[0] == "message_start"
    assert "message_delta" not in events and "message_stop" not in events


def test_r41_midstream_fault_on_a_plain_request_is_overloaded(sim, connect):
    sim.faults.add("midstream", count=1)
    with pytest.raises(anthropic.OverloadedError):
        create(connect(max_retries=0), body(user("hi")))


def test_empty_fault_streams_an_empty_reply(sim, client):
    sim.faults.add("empty", count=1)
    with client.messages.stream(**body(user("hi"))) as stream:
        message = stream.get_final_message()
    assert message.content == [] and message.usage.output_tokens == 0
    assert [c.status for c in sim.calls] == [200]


# R42 — SSE framing and equivalence with the non-streamed answer

def _raw_stream(sim, request: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    answer = sim.handle("POST", "/v1/messages", HEADERS,
                        json.dumps({**request, "stream": True}).encode())
    assert answer.status == 200 and answer.headers["content-type"] == "text/event-stream"
    return sse_events(answer.body)


def test_r42_event_framing_and_order(sim):
    sim.responder = ToolLoop(steps=1)
    request = body(user("Read it."), max_tokens=2048, tools=[tool("read_file")],
                   thinking={"type": "enabled", "budget_tokens": 1024})
    events = _raw_stream(sim, request)
    assert all(name == data["type"] for name, data in events)
    names = [name for name, _ in events if name != "ping"]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    start = events[0][1]["message"]
    assert start["stop_reason"] is None and start["content"] == []
    assert start["usage"]["input_tokens"] > 0
    blocks = names[1:-2]
    for index in range(2):  # thinking, then tool_use: start, deltas, stop, in order
        mine = [d for _, d in events if d.get("index") == index]
        assert mine[0]["type"] == "content_block_start" and mine[-1]["type"] == "content_block_stop"
        assert {d["type"] for d in mine[1:-1]} == {"content_block_delta"}
    assert blocks.count("content_block_start") == blocks.count("content_block_stop") == 2
    delta = events[-2][1]
    assert delta["delta"]["stop_reason"] == "tool_use" and delta["usage"]["output_tokens"] > 0


def test_r42_streamed_final_message_equals_the_plain_answer(sim, client):
    sim.responder = ToolLoop(steps=1)
    request = body(user(text(300, "r42")), max_tokens=2048, tools=[tool("read_file")],
                   thinking={"type": "enabled", "budget_tokens": 1024})
    plain = create(client, request)
    assert_usage_ok(client, request, plain)
    with client.messages.stream(**request) as stream:
        streamed = stream.get_final_message()
    assert [b.model_dump() for b in streamed.content] == [b.model_dump() for b in plain.content]
    assert streamed.usage.model_dump() == plain.usage.model_dump()
    assert (streamed.id, streamed.stop_reason) == (plain.id, plain.stop_reason)
    assert_usage_ok(client, request, streamed)
    follow = {**request, "messages": [*request["messages"], assistant(*dump(streamed.content)),
                                      user(tool_result(streamed.content[1].id, "ok"))]}
    assert_usage_ok(client, follow, create(client, follow))  # signature survived streaming


def test_r42_streamed_usage_with_cache_hits(client):
    request = body(user(cached(text(600, "r42c"))), model=OPUS5)
    first = create(client, request)
    with client.messages.stream(**request) as stream:
        streamed = stream.get_final_message()
    assert streamed.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens > 0
    assert_usage_ok(client, request, streamed)
