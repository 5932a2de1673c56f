"""Rate limits: the anthropic-ratelimit-* headers, 429 + retry-after, injected 429s that agree
with them, and a request id on every error (docs: rate-limits, errors)."""

from __future__ import annotations

import math
from datetime import datetime

import anthropic
import pytest
from simcheck import cached, text, user

from ctxlab.sim import Simulator, make_client
from ctxlab.sim.clock import WallClock
from ctxlab.sim.ratelimit import Limits, RateLimiter

HAIKU = "claude-haiku-4-5"
FAMILIES = ("requests", "tokens", "input-tokens", "output-tokens")
FIELDS = ("limit", "remaining", "reset")


def limited(**limits: int) -> Simulator:
    return Simulator(rate_limits=RateLimiter(Limits(**limits)))


def ask(client: anthropic.Anthropic, words: int = 20, **extra: object) -> object:
    return client.messages.with_raw_response.create(
        model=HAIKU, max_tokens=64, messages=[user(text(words, words))], **extra)


@pytest.fixture
def sim() -> Simulator:
    return limited(requests=50, input_tokens=40_000, output_tokens=8_000)


def test_every_response_carries_the_headers(sim: Simulator, client: anthropic.Anthropic,
                                            post_raw) -> None:
    answers = [ask(client), client.messages.with_raw_response.count_tokens(
        model=HAIKU, messages=[user("hi")]), client.models.with_raw_response.list(),
        post_raw(b"{"), post_raw(b"{}", path="/v1/nowhere"),
        client.messages.batches.with_raw_response.list()]
    for answer in answers:
        for family in FAMILIES:
            for name in FIELDS:
                assert f"anthropic-ratelimit-{family}-{name}" in answer.headers, (family, name)
        reset = answer.headers["anthropic-ratelimit-requests-reset"]
        assert datetime.fromisoformat(reset).tzinfo is not None  # RFC 3339
    head = answers[0].headers
    assert head["anthropic-ratelimit-requests-limit"] == "50"
    assert head["anthropic-ratelimit-requests-remaining"] == "49"
    assert head["anthropic-ratelimit-tokens-limit"] == "48000"  # input + output
    assert answers[-1].headers["anthropic-ratelimit-requests-limit"] == "1000"  # batch RPM


def test_tokens_remaining_counts_uncached_input_and_output(sim: Simulator,
                                                           client: anthropic.Anthropic) -> None:
    """Rounded to the nearest thousand; cache reads do not count toward ITPM."""
    system = [cached(text(5000, "rl"))]
    first = ask(client, system=system)
    usage = first.parse().usage
    taken_in = usage.input_tokens + usage.cache_creation_input_tokens
    assert int(first.headers["anthropic-ratelimit-input-tokens-remaining"]) == \
        round((40_000 - taken_in) / 1000) * 1000 == 35_000
    again = ask(client, system=system)
    assert again.parse().usage.cache_read_input_tokens == 5000
    # the 5,000 read tokens are free: counted, they would leave about 31,000
    assert int(again.headers["anthropic-ratelimit-input-tokens-remaining"]) >= 35_000


def test_over_the_request_limit_is_a_429_with_retry_after() -> None:
    sim = limited(requests=2)
    client = make_client(sim, max_retries=0)
    ask(client)
    ask(client)
    with pytest.raises(anthropic.RateLimitError) as info:
        ask(client)
    error = info.value
    assert "of 2 requests per minute" in error.body["error"]["message"]
    wait = float(error.response.headers["retry-after"])
    assert wait == math.ceil(wait) >= 1 and error.response.headers[
        "anthropic-ratelimit-requests-remaining"] == "0"
    assert error.body["request_id"] == error.response.headers["request-id"]
    sim.clock.advance(wait - 1)
    with pytest.raises(anthropic.RateLimitError):
        ask(client)
    sim.clock.advance(1)
    assert ask(client).status_code == 200


def test_a_big_request_spends_the_input_limit() -> None:
    sim = limited(input_tokens=3_000)
    client = make_client(sim, max_retries=0)
    ask(client, words=5_000)  # admitted (the bucket was not empty), leaves it in debt
    with pytest.raises(anthropic.RateLimitError, match="of 3,000 input tokens per minute"):
        ask(client)
    batch = client.messages.batches.create(requests=[{"custom_id": "a", "params": {
        "model": HAIKU, "max_tokens": 8, "messages": [user("hi")]}}])
    assert batch.processing_status == "in_progress"  # batches draw on their own limits


def test_an_injected_429_agrees_with_the_headers(sim: Simulator,
                                                 connect) -> None:
    sim.faults.add("rate_limit", retry_after=2)
    client = connect(max_retries=0)
    with pytest.raises(anthropic.RateLimitError) as info:
        ask(client)
    head = info.value.response.headers
    assert head["retry-after"] == "2" and head["anthropic-ratelimit-input-tokens-remaining"] == "0"
    assert f"of {int(head['anthropic-ratelimit-input-tokens-limit']):,} input tokens" in \
        info.value.body["error"]["message"]
    with pytest.raises(anthropic.RateLimitError):  # the limiter itself agrees until then
        ask(client)
    sim.clock.advance(2)
    assert ask(client).status_code == 200


def test_serves_clock_runs_with_the_wall_clock() -> None:
    """``ctxlab serve``'s clock: wall time passes, simulated latency adds on top."""

    wall = [100.0]
    clock = WallClock(lambda: wall[0])
    wall[0] += 2.5
    clock.advance(1.0)
    assert clock.now == 3.5
    wall[0] += 1
    assert clock.now == 4.5 and clock.stamp(0).endswith("Z")


@pytest.mark.parametrize("asked", [0.01, 1.0, 2.5])
def test_an_injected_429_waits_whole_seconds_its_headers_agree_with(asked: float) -> None:
    """The API's ``retry-after`` is whole seconds; the input-token bucket reads empty, its reset
    is no earlier, and the limiter stays shut exactly that long (``--faults rate_limit``'s
    default: 1 s)."""
    from ctxlab.sim.faults import Fault

    sim = limited()
    sim.faults.add("rate_limit", retry_after=asked)
    client = make_client(sim, max_retries=0)
    with pytest.raises(anthropic.RateLimitError) as info:
        ask(client)
    head = info.value.response.headers
    wait = int(head["retry-after"])
    assert head["retry-after"] == str(max(1, math.ceil(asked)))
    assert head["anthropic-ratelimit-input-tokens-remaining"] == "0"
    reset = datetime.fromisoformat(head["anthropic-ratelimit-input-tokens-reset"])
    assert (reset - datetime.fromisoformat(sim.clock.stamp())).total_seconds() >= wait
    sim.clock.advance(wait - 0.5)
    with pytest.raises(anthropic.RateLimitError):
        ask(client)
    sim.clock.advance(0.5)
    assert ask(client).status_code == 200
    assert Fault("rate_limit").retry_after == 1
