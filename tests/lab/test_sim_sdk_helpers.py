"""The SDK's own helpers against the simulator, as against the API (API notes §2.5, R42).

``messages.stream`` and its final message, ``messages.parse``, ``beta.messages.tool_runner``
with its defaults (it asks for a server-held thread and must fall back), ``count_tokens``, the
async client, ``models.list``; plus what the stream carries (``message_delta.usage`` is the
cumulative usage, as LangChain reads it) and ``ctxlab serve --faults`` plans.
"""

from __future__ import annotations

import asyncio
import json

import anthropic
import pydantic
import pytest
from anthropic import beta_tool
from simcheck import sse_events, text, user

from ctxlab.sim import Simulator, make_async_client
from ctxlab.sim.faults import parse_spec
from ctxlab.sim.options import THREADS_BETA

HAIKU = "claude-haiku-4-5"
SYSTEM = text(5000, "system")  # long enough to cache on Haiku 4.5 (4096 tokens minimum)


class Verdict(pydantic.BaseModel):
    summary: str
    confidence: float
    points: list[str]


def cached_request() -> dict:
    return {"model": HAIKU, "max_tokens": 300, "messages": [user("hello")],
            "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]}


def test_stream_final_message_equals_the_plain_answer(client):
    request = cached_request()
    with client.messages.stream(**request) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    plain = client.messages.create(**request)  # now a cache read: compare content, not usage
    assert final.content[0].text == text == plain.content[0].text
    assert final.stop_reason == plain.stop_reason == "end_turn"
    assert final.usage.cache_creation_input_tokens > 0
    assert plain.usage.cache_read_input_tokens == final.usage.cache_creation_input_tokens


def test_message_delta_usage_is_cumulative_with_input_and_cache_counts(post_raw):
    raw = json.dumps({**cached_request(), "stream": True}).encode()
    delta = [d for name, d in sse_events(post_raw(raw).content) if name == "message_delta"][0]
    usage = delta["usage"]
    assert set(usage) >= {"input_tokens", "cache_creation_input_tokens",
                          "cache_read_input_tokens", "output_tokens"}
    assert usage["cache_creation_input_tokens"] > 0 and usage["output_tokens"] > 0
    second = [d for name, d in sse_events(post_raw(raw).content) if name == "message_delta"][0]
    assert second["usage"]["cache_read_input_tokens"] == usage["cache_creation_input_tokens"]


def test_parse_returns_a_validated_model(client):
    parsed = client.messages.parse(model=HAIKU, max_tokens=400, output_format=Verdict,
                                   messages=[user("Judge it. It works. Mostly.")])
    verdict = parsed.parsed_output
    assert isinstance(verdict, Verdict) and verdict.summary and verdict.points


def test_tool_runner_with_its_defaults_falls_back_from_threads_and_runs_the_tool(sim, client):
    ran = []

    @beta_tool
    def add(a: int, b: int) -> str:
        """Add two whole numbers."""
        ran.append((a, b))
        return str(a + b)

    runner = client.beta.messages.tool_runner(
        model=HAIKU, max_tokens=300, tools=[add], messages=[user("Use add on 2 and 3.")])
    replies = list(runner)
    assert ran == [(2, 3)]
    assert [r.stop_reason for r in replies] == ["tool_use", "end_turn"]
    statuses = [(c.status, c.error) for c in sim.calls]
    assert statuses[0][0] == 400 and statuses[0][1].startswith("thread:")
    assert [s for s, _ in statuses[1:]] == [200, 200]  # one refusal, then no thread at all


def test_thread_with_the_beta_raises_the_sdks_unsupported_request_error(client):
    with pytest.raises(anthropic.BadRequestError) as info:
        client.beta.messages.create(model=HAIKU, max_tokens=50, messages=[user("hi")],
                                    thread={"type": "create"}, betas=[THREADS_BETA])
    assert info.value.body["error"]["details"] == {"error_code": "thread_unsupported_request"}
    assert type(info.value).__name__ == "ThreadUnsupportedRequestError"


def test_thread_without_the_beta_is_an_extra_input(post_raw):
    raw = json.dumps({"model": HAIKU, "max_tokens": 50, "messages": [user("hi")],
                      "thread": {"type": "create"}}).encode()
    answer = post_raw(raw)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == "thread: Extra inputs are not permitted"


def test_count_tokens_matches_the_bill(client):
    request = cached_request()
    counted = client.messages.count_tokens(model=HAIKU, messages=request["messages"],
                                           system=request["system"]).input_tokens
    usage = client.messages.create(**request).usage
    assert counted == (usage.input_tokens + usage.cache_read_input_tokens
                       + usage.cache_creation_input_tokens)


def test_async_client_creates_and_streams():
    sim = Simulator()

    async def run() -> tuple[str, str]:
        client = make_async_client(sim)
        made = await client.messages.create(model=HAIKU, max_tokens=100, messages=[user("hi")])
        async with client.messages.stream(model=HAIKU, max_tokens=100,
                                          messages=[user("hi")]) as stream:
            final = await stream.get_final_message()
        await client.close()
        return made.content[0].text, final.content[0].text

    made, streamed = asyncio.run(run())
    assert made == streamed and made.startswith("Received 1 message(s).")


def test_models_list_and_retrieve(client):
    listed = client.models.list(limit=3)
    assert len(listed.data) == 3 and listed.has_more
    every = [m.id for m in client.models.list(limit=1000).data]
    assert HAIKU + "-20251001" in every and HAIKU not in every  # listed by its snapshot id
    model = client.models.retrieve(HAIKU)  # the alias resolves to it
    assert (model.id, model.max_input_tokens, model.max_tokens) == (HAIKU + "-20251001",
                                                                    200_000, 64_000)
    with pytest.raises(anthropic.NotFoundError):
        client.models.retrieve("claude-imaginary-9")


def test_fault_spec_schedules_faults_the_sdk_retries(sim, connect):
    sim.faults = parse_spec("rate_limit*2")
    message = connect(max_retries=2).messages.create(model=HAIKU, max_tokens=50,
                                                     messages=[user("hi")])
    assert message.stop_reason == "end_turn"
    assert [c.status for c in sim.calls] == [429, 429, 200]


def test_fault_spec_rates_are_seeded():
    def fired(seed: int) -> list[str]:
        plan = parse_spec("overloaded@0.3,server_error@0.2", seed=seed)
        return [str(plan.next_fault(None) and plan.fired[-1]) for _ in range(200)]

    assert fired(1) == fired(1) != fired(2)
    share = fired(1).count("overloaded") / 200
    assert 0.2 < share < 0.4


@pytest.mark.parametrize("spec, problem", [("bogus", "unknown fault kind"),
                                           ("overloaded@x", "must be a number"),
                                           ("overloaded@0.7,empty@0.6", "more than 1"),
                                           ("rate_limit*two", "whole number")])
def test_fault_spec_mistakes_are_named(spec, problem):
    with pytest.raises(ValueError, match=problem):
        parse_spec(spec)


def test_serve_names_a_bad_fault_spec_in_one_line(capsys):
    from ctxlab.cli import main

    assert main(["serve", "--port", "0", "--faults", "rate_limit*two"]) == 2
    err = capsys.readouterr().err
    assert "--faults" in err and "whole number" in err and "Traceback" not in err
