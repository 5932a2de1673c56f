"""Message Batches: list, results, delete and the async SDK (docs: Message Batches reference)."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import httpx2
import pytest
from simcheck import user

from ctxlab.sim import Simulator, make_async_client

HAIKU = "claude-haiku-4-5"


def requests(n: int, tag: str = "r") -> list[dict[str, Any]]:
    return [{"custom_id": f"{tag}{i}", "params": {"model": HAIKU, "max_tokens": 32,
                                                 "messages": [user(f"hello {i}")]}}
            for i in range(n)]


def test_list_pages_newest_first(sim: Simulator, client: anthropic.Anthropic) -> None:
    made = [client.messages.batches.create(requests=requests(1)).id for _ in range(5)]
    first = client.messages.batches.list(limit=2)
    assert [b.id for b in first.data] == made[:-3:-1] and first.has_more
    assert first.first_id == made[-1] and first.last_id == made[-2]
    assert [b.id for b in client.messages.batches.list(limit=2)] == made[::-1]  # auto-paging
    before = client.messages.batches.list(limit=2, before_id=made[1])
    assert [b.id for b in before.data] == [made[3], made[2]]
    with pytest.raises(anthropic.BadRequestError, match="limit: Input should be less than"):
        client.messages.batches.list(limit=1001)


def test_results_only_once_ended(sim: Simulator, client: anthropic.Anthropic,
                                 transport: str, request: pytest.FixtureRequest) -> None:
    batch = client.messages.batches.create(requests=requests(20))
    with pytest.raises(anthropic.AnthropicError, match="No `results_url`.*in_progress"):
        client.messages.batches.results(batch.id)  # the SDK looks at results_url first
    base = "http://ctxlab.sim" if transport == "inproc" else request.getfixturevalue(
        "server").url
    path = f"/v1/messages/batches/{batch.id}/results"
    with pytest.raises(anthropic.BadRequestError, match="has not ended yet"):
        client.get(path, cast_to=httpx2.Response)
    sim.clock.advance(60)
    ended = client.messages.batches.retrieve(batch.id)
    assert ended.results_url == base + path
    lines = client.get(path, cast_to=httpx2.Response).text.splitlines()
    assert len(lines) == 20 and all(line.startswith('{"custom_id": "r') for line in lines)


def test_delete_only_once_ended(sim: Simulator, client: anthropic.Anthropic) -> None:
    batch = client.messages.batches.create(requests=requests(3))
    with pytest.raises(anthropic.BadRequestError, match="cancel it and wait"):
        client.messages.batches.delete(batch.id)
    client.messages.batches.cancel(batch.id)
    sim.clock.advance(60)
    assert client.messages.batches.retrieve(batch.id).processing_status == "ended"
    deleted = client.messages.batches.delete(batch.id)
    assert (deleted.id, deleted.type) == (batch.id, "message_batch_deleted")
    with pytest.raises(anthropic.NotFoundError) as info:
        client.messages.batches.retrieve(batch.id)
    assert info.value.body["error"] == {"type": "not_found_error",
                                        "message": "The requested resource could not be found."}


def test_a_cancel_right_away_cancels_what_has_not_started(sim: Simulator,
                                                          client: anthropic.Anthropic) -> None:
    batch = client.messages.batches.create(requests=requests(30))
    client.messages.batches.cancel(batch.id)
    sim.clock.advance(60)
    counts = client.messages.batches.retrieve(batch.id).request_counts
    assert (counts.succeeded, counts.canceled) == (8, 22)  # the 8 lanes had started
    kinds = {r.custom_id: r.result.type for r in client.messages.batches.results(batch.id)}
    assert sorted(k for k, v in kinds.items() if v == "succeeded") == sorted(
        f"r{i}" for i in range(8))


def test_the_async_sdk_runs_a_batch(sim: Simulator) -> None:
    async def run() -> tuple[list[str], dict[str, str], str]:
        async with make_async_client(sim) as client:
            batch = await client.messages.batches.create(requests=requests(12, "a"))
            statuses = [(await client.messages.batches.retrieve(batch.id)).processing_status]
            sim.clock.advance(60)
            statuses.append((await client.messages.batches.retrieve(batch.id)).processing_status)
            results = {r.custom_id: r.result.type
                       async for r in await client.messages.batches.results(batch.id)}
            listed = [b.id async for b in client.messages.batches.list()]
            deleted = await client.messages.batches.delete(batch.id)
            assert listed == [batch.id]
            return statuses, results, deleted.type

    statuses, results, deleted = asyncio.run(run())
    assert statuses == ["in_progress", "ended"]
    assert results == {f"a{i}": "succeeded" for i in range(12)}
    assert deleted == "message_batch_deleted"
