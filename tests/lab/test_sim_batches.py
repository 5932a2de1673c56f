"""Message Batches with the genuine SDK, in-process and over HTTP (docs: batch-processing).

The issue's acceptance run: 100 mixed requests (valid, invalid, one canceled) end with
``request_counts`` that add up, results whose ``custom_id``s match, errors worded exactly as
the Messages API words the same params, and a bill at half the standard price.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import anthropic
import pytest
from simcheck import assistant, cached, text, tool_result, user

from ctxlab import models
from ctxlab.sim import Latency, Simulator, batch_api, make_client
from ctxlab.telemetry.usage import record_from_usage

HAIKU = "claude-haiku-4-5"
SYSTEM = [cached(text(5000, "batch-system"))]  # over Haiku 4.5's 4,096-token cache minimum


def params(i: int, **extra: Any) -> dict[str, Any]:
    return {"model": HAIKU, "max_tokens": 64, "system": SYSTEM,
            "messages": [user(f"Question {i}: {text(20, i)}")], **extra}


# Invalid the Messages API's way: the batch must word each error exactly as messages.create does
INVALID: dict[str, dict[str, Any]] = {
    "empty-messages": params(0, messages=[]),
    "unknown-model": params(0, model="claude-nope-1"),
    "assistant-first": params(0, messages=[assistant("hi"), user("go")]),
    "orphan-result": params(0, messages=[user(tool_result("toolu_x"))]),
    "max-tokens-over": params(0, max_tokens=10_000_000),
    "system-role": params(0, messages=[{"role": "system", "content": "x"}, user("go")]),
    "empty-text": params(0, messages=[user("")]),
    "unknown-field": params(0, colour="blue"),
    "temperature": params(0, temperature=2),
}
# Refused only inside a batch (docs: what can be batched)
BATCH_ONLY = {"prewarm": (params(0, max_tokens=0),
                          "max_tokens: Input should be greater than or equal to 1"),
              "streamed": (params(0, stream=True), "stream: Input should be False")}


def mixed_requests() -> list[dict[str, Any]]:
    bad = {**INVALID, **{name: p for name, (p, _) in BATCH_ONLY.items()}}
    requests = [{"custom_id": f"bad-{name}", "params": p} for name, p in bad.items()]
    requests += [{"custom_id": f"ok-{i:03d}", "params": params(i)}
                 for i in range(100 - len(requests))]
    return requests


def messages_api_error(client: anthropic.Anthropic, body: dict[str, Any]) -> tuple[str, str]:
    with pytest.raises(anthropic.APIStatusError) as info:
        client.post("/v1/messages", cast_to=object, body=body)  # the exact body, as sent
    return info.value.body["error"]["type"], info.value.body["error"]["message"]


def test_a_batch_of_100_mixed_requests_ends_as_the_api_documents(
        sim: Simulator, connect: Callable[..., anthropic.Anthropic]) -> None:
    client = connect(max_retries=0)
    requests = mixed_requests()
    batch = client.messages.batches.create(requests=requests)
    assert batch.processing_status == "in_progress" and batch.results_url is None
    assert batch.request_counts.processing == 100
    assert batch.expires_at - batch.created_at == timedelta(hours=24)
    lanes = sim.batches[batch.id]  # 89 valid requests on 8 lanes: the last one starts alone
    while lanes.ran < 99:  # step from start to start; cancel when one has not started
        sim.clock.advance(min(lanes.workers) - sim.clock.now)
        assert client.messages.batches.retrieve(batch.id).processing_status == "in_progress"
    canceling = client.messages.batches.cancel(batch.id)
    assert canceling.processing_status == "canceling" and canceling.cancel_initiated_at
    assert canceling.request_counts.processing == 100  # tallies wait for the end
    sim.clock.advance(60)
    ended = client.messages.batches.retrieve(batch.id)
    counts = ended.request_counts
    assert ended.processing_status == "ended" and ended.ended_at >= ended.cancel_initiated_at
    assert (counts.processing, counts.canceled, counts.expired) == (0, 1, 0)
    assert counts.errored == len(INVALID) + len(BATCH_ONLY)
    assert counts.succeeded + counts.errored + counts.canceled == 100

    results = {r.custom_id: r.result for r in client.messages.batches.results(batch.id)}
    assert sorted(results) == sorted(r["custom_id"] for r in requests)
    assert results[requests[-1]["custom_id"]].type == "canceled"  # the one never started
    for name, body in INVALID.items():
        error = results[f"bad-{name}"]
        assert error.type == "errored"
        assert (error.error.error.type, error.error.error.message) == \
            messages_api_error(client, body)
    for name, (_, message) in BATCH_ONLY.items():
        assert results[f"bad-{name}"].error.error.message == message

    succeeded = [r.message for r in results.values() if r.type == "succeeded"]
    assert len(succeeded) == counts.succeeded
    bill = sum(record_from_usage(0, "main", m.usage, model=HAIKU, messages_sent=1,
                                 estimated_tokens=0).cost_usd for m in succeeded)
    spec = models.get(HAIKU)
    standard = sum(models.cost_usd(
        spec, input_tokens=m.usage.input_tokens, output_tokens=m.usage.output_tokens,
        cache_read=m.usage.cache_read_input_tokens,
        write_5m=m.usage.cache_creation.ephemeral_5m_input_tokens,
        write_1h=m.usage.cache_creation.ephemeral_1h_input_tokens) for m in succeeded)
    assert {m.usage.service_tier for m in succeeded} == {"batch"}
    assert bill == pytest.approx(standard * models.BATCH_DISCOUNT) and bill > 0


def test_prompt_caching_inside_a_batch_is_best_effort(sim: Simulator) -> None:
    """The first requests start together and all write the shared prefix; those that start
    after a first token is out read it (docs: cache hits on a best-effort basis)."""
    client = make_client(sim)
    requests = [{"custom_id": f"q{i}", "params": params(i)} for i in range(20)]
    batch = client.messages.batches.create(requests=requests)
    sim.clock.advance(60)
    usage = {r.custom_id: r.result.message.usage
             for r in client.messages.batches.results(batch.id)}
    wrote = [cid for cid, u in usage.items() if u.cache_creation_input_tokens]
    read = [cid for cid, u in usage.items() if u.cache_read_input_tokens]
    assert sorted(wrote) == [f"q{i}" for i in range(8)]  # one lane each, started at once
    assert sorted(read) == sorted(f"q{i}" for i in range(8, 20))
    later = client.messages.create(**params(99))  # the batch's entry serves a later request
    assert later.usage.cache_read_input_tokens == usage["q19"].cache_read_input_tokens > 4096
    sim.clock.advance(3600)  # past the 5-minute TTL (the docs suggest 1 h for batches)
    assert client.messages.create(**params(98)).usage.cache_read_input_tokens == 0


def test_requests_not_started_within_24_hours_expire() -> None:
    sim = Simulator(latency=Latency(first_token_s=3 * 3600))  # every request takes 3 hours
    client = make_client(sim)
    batch = client.messages.batches.create(
        requests=[{"custom_id": f"r{i}", "params": params(i)} for i in range(70)])
    sim.clock.advance(23 * 3600)
    assert client.messages.batches.retrieve(batch.id).processing_status == "in_progress"
    sim.clock.advance(2 * 3600)
    ended = client.messages.batches.retrieve(batch.id)
    assert ended.processing_status == "ended"
    late = ended.ended_at - ended.expires_at  # the last wave, started before 24 h, finishes
    assert timedelta(0) < late < timedelta(minutes=1)
    # 8 lanes × waves at 0, 3, …, 21 hours = 64 run; the 6 left are expired
    assert (ended.request_counts.succeeded, ended.request_counts.expired) == (64, 6)
    kinds = [r.result.type for r in client.messages.batches.results(batch.id)]
    assert kinds.count("expired") == 6


@pytest.mark.parametrize("requests, message", [
    ([], "requests: List should have at least 1 item after validation, not 0"),
    ([{"custom_id": "a b", "params": {}}],
     "requests.0.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"),
    ([{"custom_id": "x" * 65, "params": {}}],
     "requests.0.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"),
    ([{"custom_id": "a", "params": {}}, {"custom_id": "a", "params": {}}],
     "requests.1.custom_id: custom_id 'a' is already used by another request in this batch; "
     "each must be unique"),
    ([{"custom_id": "a"}], "requests.0.params: Field required"),
])
def test_the_envelope_is_checked_at_once(client: anthropic.Anthropic,
                                         requests: list[Any], message: str) -> None:
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.batches.create(requests=requests)
    assert info.value.body["error"]["message"] == message
    assert info.value.request_id and info.value.body["request_id"] == info.value.request_id


def test_at_most_100000_requests(client: anthropic.Anthropic,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The limit's figure, then its mechanism on a small copy (100,001 requests cost seconds)."""
    assert batch_api.MAX_REQUESTS == 100_000
    monkeypatch.setattr(batch_api, "MAX_REQUESTS", 3)
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.batches.create(requests=[{"custom_id": f"r{i}", "params": {}}
                                                 for i in range(4)])
    assert info.value.body["error"]["message"] == \
        "requests: List should have at most 3 items after validation, not 4"
