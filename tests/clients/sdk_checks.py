"""The genuine ``anthropic`` SDK against ``ctxlab serve``: Message Batches (sync and async), the
rate-limit headers, a 429 whose ``retry-after`` the SDK honours, and a 413 with a request id.

``serve``'s clock runs with the wall clock, so a batch is polled as the docs poll one (sleeping
between retrievals) and the SDK's own retry after a 429 gets through once ``retry-after`` has
passed.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import anthropic
from common import KEY, MODEL, serve

FAMILIES = ("requests", "tokens", "input-tokens", "output-tokens")
PROMPT = [{"role": "user", "content": "Say hello."}]


def mixed(n: int) -> list[dict[str, Any]]:
    """Two invalid requests (the first to run), then ``n - 2`` valid ones."""
    bad = [{"custom_id": "no-messages", "params": {"model": MODEL, "max_tokens": 64,
                                                   "messages": []}},
           {"custom_id": "unknown-model", "params": {"model": "claude-nope", "max_tokens": 64,
                                                     "messages": PROMPT}}]
    return bad + [{"custom_id": f"ok-{i}", "params": {"model": MODEL, "max_tokens": 64,
                                                      "messages": PROMPT}}
                  for i in range(n - 2)]


def sdk_checks(url: str, ctxlab: str) -> dict[str, Callable[[], str]]:
    client = anthropic.Anthropic(base_url=url, api_key=KEY)

    def batch() -> str:
        requests = mixed(100)
        made = client.messages.batches.create(requests=requests)
        client.messages.batches.cancel(made.id)  # the first lanes have started; the rest wait
        while (got := client.messages.batches.retrieve(made.id)).processing_status != "ended":
            time.sleep(0.2)
        counts = got.request_counts
        total = counts.succeeded + counts.errored + counts.canceled + counts.expired
        assert total == 100 and counts.errored == 2 and counts.canceled >= 1, counts
        results = {r.custom_id: r.result for r in client.messages.batches.results(made.id)}
        assert sorted(results) == sorted(r["custom_id"] for r in requests)
        for name in ("no-messages", "unknown-model"):
            body = next(r["params"] for r in requests if r["custom_id"] == name)
            try:
                client.post("/v1/messages", cast_to=object, body=body)
            except anthropic.APIStatusError as error:
                expected = error.body["error"]["message"]
            else:
                raise AssertionError(f"the Messages API accepted {name}")
            assert results[name].error.error.message == expected, (name, expected)
        usage = [r.message.usage for r in results.values() if r.type == "succeeded"]
        assert usage and {u.service_tier for u in usage} == {"batch"}
        client.messages.batches.delete(made.id)
        return (f"{counts.succeeded} succeeded, {counts.errored} errored (as the Messages API "
                f"words them), {counts.canceled} canceled; billed at the batch tier")

    def batch_async() -> str:
        async def run() -> dict[str, str]:
            async with anthropic.AsyncAnthropic(base_url=url, api_key=KEY) as aclient:
                made = await aclient.messages.batches.create(requests=mixed(10))
                while (await aclient.messages.batches.retrieve(made.id)
                       ).processing_status != "ended":
                    await asyncio.sleep(0.2)
                return {r.custom_id: r.result.type
                        async for r in await aclient.messages.batches.results(made.id)}

        kinds = asyncio.run(run())
        assert sorted(kinds.values()) == ["errored"] * 2 + ["succeeded"] * 8, kinds
        return "10 results by custom_id: 8 succeeded, 2 errored"

    def headers() -> str:
        message = client.messages.with_raw_response.create(model=MODEL, max_tokens=64,
                                                           messages=PROMPT)
        counted = [client.messages.with_raw_response.count_tokens(model=MODEL, messages=PROMPT)
                   for _ in range(2)]  # no simulated latency between them: little refill
        for raw in (message, *counted):
            for family in FAMILIES:
                for field in ("limit", "remaining", "reset"):
                    assert f"anthropic-ratelimit-{family}-{field}" in raw.headers, (family, field)
        left = [int(r.headers["anthropic-ratelimit-requests-remaining"]) for r in counted]
        assert left[1] <= left[0] < 1000, left
        reset = datetime.fromisoformat(message.headers["anthropic-ratelimit-requests-reset"])
        assert abs((reset - datetime.now(UTC)).total_seconds()) < 60, reset
        return f"12 headers on each answer; requests remaining {left[0]} then {left[1]}"

    def retry_after() -> str:
        with serve(ctxlab, "--rate-limits", "rpm=60") as tight:
            strict = anthropic.Anthropic(base_url=tight, api_key=KEY, max_retries=0)
            patient = anthropic.Anthropic(base_url=tight, api_key=KEY, max_retries=3)
            refused = None
            for _ in range(300):  # empty the requests bucket with cheap calls
                try:
                    strict.messages.count_tokens(model=MODEL, messages=PROMPT)
                except anthropic.RateLimitError as error:
                    refused = error
                    break
            assert refused is not None, "no 429 after 300 requests at rpm=60"
            wait = float(refused.response.headers["retry-after"])
            assert refused.body["request_id"] == refused.request_id and wait >= 1
            for _ in range(300):  # again, now letting the SDK retry on its own
                started = time.monotonic()
                raw = patient.messages.with_raw_response.count_tokens(model=MODEL,
                                                                      messages=PROMPT)
                if raw.retries_taken:
                    took = time.monotonic() - started
                    break
            assert raw.retries_taken and took >= raw.retries_taken * 1.0, (took, raw)
        return (f"429 with retry-after {wait:g} s; the SDK slept it and got through on retry "
                f"{raw.retries_taken} after {took:.1f} s")

    def too_large() -> str:
        parts = urlsplit(url)
        head = (f"POST /v1/messages HTTP/1.1\r\nHost: {parts.netloc}\r\nx-api-key: {KEY}\r\n"
                f"anthropic-version: 2023-06-01\r\ncontent-type: application/json\r\n"
                f"Content-Length: {32 * 1024 * 1024 + 1}\r\n\r\n").encode()
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as conn:
            conn.sendall(head)
            reply = b"".join(iter(lambda: conn.recv(65536), b""))
        top, body = reply.split(b"\r\n\r\n", 1)
        error = json.loads(body)
        assert top.startswith(b"HTTP/1.1 413") and error["error"]["type"] == "request_too_large"
        assert f"request-id: {error['request_id']}".encode() in top.lower(), top
        return f"413 request_too_large with request_id {error['request_id']}"

    return {"batch, sync": batch, "batch, async": batch_async, "rate-limit headers": headers,
            "429 retry-after": retry_after, "413 request id": too_large}
