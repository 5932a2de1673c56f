"""Request validation, R1–R15 (API notes §8), through the genuine SDK on both transports.

Error texts are written out here as the notes give them, so a drift in ``sim/wording.py`` fails.
Texts the notes mark UNVERIFIED are pinned to the simulator's documented choice.
"""

from __future__ import annotations

import json
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

from ctxlab.sim import Reply

HAIKU = "claude-haiku-4-5"  # 200K window, 64K output, prefill allowed (4.5)
SONNET46 = "claude-sonnet-4-6"  # 1M window, no prefill (4.6+)
SMALL = "ctxlab-sim-32k"  # simulator-only: 32K window, 8K output, 4.5 rules
LEGACY = "claude-sonnet-4-0"  # pre-4.5: input + max_tokens > window is rejected
THINKING = {"type": "enabled", "budget_tokens": 1024}

TOOL_USE_TAIL = ("Each `tool_use` block must have a corresponding `tool_result` block in the "
                 "next message.")


def body(*messages: dict[str, Any], model: str = HAIKU, **extra: Any) -> dict[str, Any]:
    return {"model": model, "max_tokens": 256, "messages": list(messages), **extra}


def ok(client: anthropic.Anthropic, request: dict[str, Any]) -> Any:
    message = create(client, request)
    assert_usage_ok(client, request, message)
    return message


# R1 — authentication

def test_r01_bearer_from_the_sdk_and_x_api_key_are_accepted(sim, connect, post_raw):
    sim.api_key = "sk-right"
    ok(connect(api_key="sk-right"), body(user("hi")))  # the SDK sends Authorization: Bearer
    raw = json.dumps(body(user("hi"))).encode()
    version = {"anthropic-version": "2023-06-01"}
    assert post_raw(raw, headers={"x-api-key": "sk-right", **version}).status_code == 200
    assert post_raw(raw, headers={"authorization": "Bearer sk-right", **version}).status_code == 200


def test_r01_wrong_key_is_401(sim, connect):
    sim.api_key = "sk-right"
    with api_error(anthropic.AuthenticationError, 401, "invalid x-api-key",
                   error_type="authentication_error"):
        create(connect(api_key="sk-wrong"), body(user("hi")))


def test_r01_missing_key_is_401(post_raw):
    answer = post_raw(json.dumps(body(user("hi"))).encode(),
                      headers={"content-type": "application/json"})
    assert answer.status_code == 401
    assert answer.json()["error"] == {"type": "authentication_error",
                                      "message": "x-api-key header is required"}
    assert answer.headers["request-id"] == answer.json()["request_id"]


# R2 — first message

def test_r02_empty_messages_rejected(client):
    with api_error(anthropic.BadRequestError, 400, "messages: at least one message is required"):
        create(client, body())


def test_r02_first_message_must_be_user(client):
    with api_error(anthropic.BadRequestError, 400,
                   'messages: first message must use the "user" role'):
        create(client, body(assistant("hello"), user("hi")))


# R3 — consecutive same-role turns are merged, never "roles must alternate"

def test_r03_consecutive_user_messages_are_one_turn(client):
    message = ok(client, body(user("first"), user("second")))
    assert message.content[0].text.startswith("Received 1 message(s).")  # the merged view
    assert "first second" in message.content[0].text


def test_r03_split_assistant_turn_answered_by_next_user_turn(client):
    request = body(user("go"), assistant("Let me look."), assistant(tool_use("toolu_a")),
                   user(tool_result("toolu_a")), model=SONNET46, tools=[tool("read_file")])
    ok(client, request)


def test_r03_error_paths_use_the_clients_own_indices(client):
    request = body(user("a"), user("b"), assistant(tool_use("toolu_a")), user("no result"),
                   tools=[tool("read_file")])
    with api_error(anthropic.BadRequestError, 400,
                   "messages.2: `tool_use` ids were found without `tool_result` blocks "
                   f"immediately after: toolu_a. {TOOL_USE_TAIL}"):
        create(client, request)


# R4 — at most 4 breakpoints across tools + system + messages

@pytest.mark.parametrize("where", ["messages", "tools+system+messages", "automatic"])
def test_r04_more_than_four_breakpoints(client, where):
    if where == "messages":
        request = body(user(*[cached(f"part {k}") for k in range(5)]))
    elif where == "tools+system+messages":
        request = body(user(cached("a"), cached("b")), system=[cached("rules")],
                       tools=[{**tool("t1"), "cache_control": {"type": "ephemeral"}},
                              {**tool("t2"), "cache_control": {"type": "ephemeral"}}])
    else:  # the automatic breakpoint takes a fifth slot when the last block has none
        request = body(user(*[cached(f"part {k}") for k in range(4)], "tail"),
                       cache_control={"type": "ephemeral"})
    with api_error(anthropic.BadRequestError, 400,
                   "A maximum of 4 blocks with cache_control may be provided. Found 5."):
        create(client, request)


def test_r04_four_breakpoints_accepted(client):
    ok(client, body(user(*[cached(f"part {k}") for k in range(4)])))


# R5 — a 1h breakpoint may not follow a 5m one (tools → system → messages)

@pytest.mark.parametrize("case", ["tool-then-system", "within-messages", "system-then-messages"])
def test_r05_one_hour_after_five_minutes(client, case):
    if case == "tool-then-system":  # default TTL on the tool is 5m
        request = body(user("hi"), system=[cached("rules", "1h")],
                       tools=[{**tool("t1"), "cache_control": {"type": "ephemeral"}}])
        path = "system.0"
    elif case == "within-messages":
        request = body(user(cached("a", "5m"), cached("b", "1h")))
        path = "messages.0.content.1"
    else:
        request = body(user("x"), assistant("y"), user(cached("z", "1h")),
                       system=[cached("rules", "5m")])
        path = "messages.2.content.0"
    with api_error(anthropic.BadRequestError, 400,
                   f"{path}.cache_control.ttl: a ttl='1h' cache_control block must not come "
                   "after a ttl='5m' cache_control block."):
        create(client, request)


def test_r05_one_hour_before_five_minutes_accepted(client):
    ok(client, body(user(cached("a", "1h"), cached("b", "5m")), system=[cached("rules", "1h")]))


# R6 — empty text blocks

def test_r06_cache_control_on_empty_text(client):
    with api_error(anthropic.BadRequestError, 400,
                   "messages.0.content.1.text: cache_control cannot be set for empty text "
                   "blocks"):
        create(client, body(user("hello", cached(""))))


def test_r06_cache_control_on_empty_system_text(client):
    with api_error(anthropic.BadRequestError, 400,
                   "system.0.text: cache_control cannot be set for empty text blocks"):
        create(client, body(user("hello"), system=[cached("")]))


def test_r06_empty_text_without_cache_control(client):
    with api_error(anthropic.BadRequestError, 400,
                   "messages: text content blocks must be non-empty"):
        create(client, body(user("hello", "")))


# R7, R8, R9 — tool_use / tool_result pairing

def test_r07_tool_result_without_previous_tool_use(client):
    with api_error(anthropic.BadRequestError, 400,
                   "messages.0: `tool_result` block(s) provided when previous message does not "
                   "contain any `tool_use` blocks"):
        create(client, body(user(tool_result("toolu_x"))))


def test_r07_tool_result_after_a_text_only_assistant_turn(client):
    with api_error(anthropic.BadRequestError, 400,
                   "messages.2: `tool_result` block(s) provided when previous message does not "
                   "contain any `tool_use` blocks"):
        create(client, body(user("hi"), assistant("hello"), user(tool_result("toolu_x"))))


def test_r08_unexpected_tool_use_id(client):
    request = body(user("go"), assistant(tool_use("toolu_a")),
                   user(tool_result("toolu_a"), tool_result("toolu_zz")), tools=[tool("read_file")])
    with api_error(anthropic.BadRequestError, 400,
                   "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` "
                   "blocks: toolu_zz. Each `tool_result` block must have a corresponding "
                   "`tool_use` block in the previous message."):
        create(client, request)


@pytest.mark.parametrize("case, ids", [
    ("text-before-results", "toolu_a"),
    ("no-next-message", "toolu_a"),
    ("partial-answer", "toolu_b"),
    ("no-results", "toolu_a, toolu_b"),
])
def test_r09_unanswered_tool_use(client, case, ids):
    two = case in ("partial-answer", "no-results")
    uses = [tool_use("toolu_a"), tool_use("toolu_b")] if two else [tool_use("toolu_a")]
    tail = {
        "text-before-results": [user("here you go", tool_result("toolu_a"))],
        "no-next-message": [],
        "partial-answer": [user(tool_result("toolu_a"))],
        "no-results": [user("what did you find?")],
    }[case]
    # Sonnet 4.6 rejects prefill too: the pairing rule is checked first (documented order).
    request = body(user("go"), assistant(*uses), *tail, model=SONNET46, tools=[tool("read_file")])
    with api_error(anthropic.BadRequestError, 400,
                   "messages.1: `tool_use` ids were found without `tool_result` blocks "
                   f"immediately after: {ids}. {TOOL_USE_TAIL}"):
        create(client, request)


def test_r09_all_answered_first_then_text_is_accepted(client):
    request = body(user("go"), assistant(tool_use("toolu_a"), tool_use("toolu_b")),
                   user(tool_result("toolu_b"), tool_result("toolu_a"), "thanks"),
                   model=SONNET46, tools=[tool("read_file")])
    ok(client, request)


# R10 — prefill

def test_r10_prefill_rejected_on_4_6_models(client):
    with api_error(anthropic.BadRequestError, 400,
                   "This model does not support assistant message prefill. The conversation "
                   "must end with a user message."):
        create(client, body(user("hi"), assistant("Sure,"), model=SONNET46))


def test_r10_prefill_continued_on_4_5_models(client):
    message = ok(client, body(user("hi"), assistant("Sure,"), model=HAIKU))
    assert message.stop_reason == "end_turn" and message.content


# R11 — max_tokens above the model's output limit

def test_r11_max_tokens_above_model_limit(client):
    with api_error(anthropic.BadRequestError, 400,
                   "max_tokens: 64001 > 64000, which is the maximum allowed number of output "
                   "tokens for claude-haiku-4-5"):
        client.messages.create(**body(user("hi"), max_tokens=64001), timeout=30)


def test_r11_max_tokens_at_model_limit_accepted(client):
    request = body(user("hi"), max_tokens=64000)
    message = client.messages.create(**request, timeout=30)
    assert_usage_ok(client, request, message)


# R12 — prompt too long, tool system prompt included

def test_r12_prompt_too_long(client):
    request = body(user(text(33_000)), model=SMALL)
    total = count(client, request)
    assert total > 32_000
    with api_error(anthropic.BadRequestError, 400,
                   f"prompt is too long: {total} tokens > 32000 maximum"):
        create(client, request)


def test_r12_tool_system_prompt_counts_toward_the_window(client):
    plain = body(user(text(31_800, "r12")), model=SMALL, max_tokens=16)
    with_tools = {**plain, "tools": [tool("read_file")]}
    assert count(client, plain) <= 32_000 < count(client, with_tools)
    assert count(client, with_tools) - count(client, plain) >= 496  # Haiku-class overhead
    ok(client, plain)
    with api_error(anthropic.BadRequestError, 400,
                   f"prompt is too long: {count(client, with_tools)} tokens > 32000 maximum"):
        create(client, with_tools)


# R13 — input + max_tokens over the window

def test_r13_pre_4_5_model_rejects_input_plus_max_tokens(client):
    request = body(user(text(140_000, "r13")), model=LEGACY, max_tokens=64_000)
    total = count(client, request)
    with api_error(anthropic.BadRequestError, 400,
                   f"input length and `max_tokens` exceed context limit: {total} + 64000 > "
                   "200000, decrease input length or `max_tokens` and try again"):
        client.messages.create(**request, timeout=30)
    fits = {**request, "max_tokens": 200_000 - total}
    message = client.messages.create(**fits, timeout=30)
    assert_usage_ok(client, fits, message)


def test_r13_4_5_model_truncates_at_the_window(client):
    request = body(user(text(31_995, "r13b")), model=SMALL, max_tokens=8_000)
    total = count(client, request)
    assert 31_990 < total < 32_000
    message = ok(client, request)
    assert message.stop_reason == "model_context_window_exceeded"
    assert message.usage.output_tokens == 32_000 - total
    capped = ok(client, {**request, "max_tokens": 2})
    assert capped.stop_reason == "max_tokens" and capped.usage.output_tokens == 2


# R14 — thinking blocks of the latest assistant message come back unmodified

def _thinking_turn(client: anthropic.Anthropic) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    first = body(user("Plan the fix."), max_tokens=2048, thinking=THINKING)
    message = ok(client, first)
    assert [b.type for b in message.content] == ["thinking", "text"]
    return first, dump(message.content)


def _follow_up(first: dict[str, Any], content: list[dict[str, Any]]) -> dict[str, Any]:
    return {**first, "messages": [*first["messages"], assistant(*content), user("Go on.")]}


def test_r14_unmodified_thinking_accepted(client):
    first, content = _thinking_turn(client)
    ok(client, _follow_up(first, content))


def test_r14_modified_thinking_rejected(client):
    first, content = _thinking_turn(client)
    content[0]["thinking"] += " (edited)"
    with api_error(anthropic.BadRequestError, 400,
                   "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest "
                   "assistant message cannot be modified. These blocks must remain as they were "
                   "in the original response."):
        create(client, _follow_up(first, content))


def test_r14_forged_signature_rejected(client):
    first, content = _thinking_turn(client)
    content[0]["signature"] = "EqQBCkgIARABGAIiQL" + "x" * 40
    with api_error(anthropic.BadRequestError, 400,
                   "messages.1.content.0: Invalid `signature` in `thinking` block"):
        create(client, _follow_up(first, content))


class TwoThoughts:
    """A responder that thinks twice before answering (to drop or reorder one thought)."""

    def respond(self, view: Any) -> Reply:
        return Reply([{"type": "thinking", "thinking": "First, read the failing test."},
                      {"type": "thinking", "thinking": "Then, patch the parser."},
                      {"type": "text", "text": "Done."}])

    def summarize(self, view: Any, instructions: str | None) -> str:
        return "summary"


@pytest.mark.parametrize("change", ["drop-first", "drop-second", "reorder"])
def test_r14_dropped_or_reordered_thinking_rejected(sim, client, change):
    sim.responder = TwoThoughts()
    first, content = _thinking_turn_two(client)
    a, b, answer = content
    kept = {"drop-first": [b, answer], "drop-second": [a, answer], "reorder": [b, a, answer]}
    with api_error(anthropic.BadRequestError, 400,
                   "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest "
                   "assistant message cannot be modified. These blocks must remain as they were "
                   "in the original response."):
        create(client, _follow_up(first, kept[change]))
    ok(client, _follow_up(first, [a, b, answer]))
    ok(client, _follow_up(first, [answer]))  # dropping every thought is not an edit


def _thinking_turn_two(client: anthropic.Anthropic) -> tuple[dict[str, Any], list[Any]]:
    first = body(user("Plan the fix."), max_tokens=2048, thinking=THINKING)
    message = ok(client, first)
    assert [b.type for b in message.content] == ["thinking", "thinking", "text"]
    return first, dump(message.content)


def test_r14_thinking_from_another_response_rejected(client):
    first, content = _thinking_turn(client)
    other = ok(client, body(user("Something else."), max_tokens=2048, thinking=THINKING))
    foreign = dump(other.content)[0]  # validly signed, but for another response
    with api_error(anthropic.BadRequestError, 400,
                   "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest "
                   "assistant message cannot be modified. These blocks must remain as they were "
                   "in the original response."):
        create(client, _follow_up(first, [content[0], foreign, content[1]]))


# R15 — thinking with forced tools; max_tokens 0 combinations

def test_r15_thinking_with_forced_tool_choice(client):
    request = body(user("hi"), max_tokens=2048, thinking=THINKING, tools=[tool("read_file")],
                   tool_choice={"type": "any"})
    with api_error(anthropic.BadRequestError, 400,
                   "Thinking may not be enabled when tool_choice forces tool use."):
        create(client, request)


def test_r15_adaptive_thinking_allows_forced_tool_choice(client):
    ok(client, body(user("hi"), model=SONNET46, max_tokens=2048, thinking={"type": "adaptive"},
                    tools=[tool("read_file")], tool_choice={"type": "any"}))


@pytest.mark.parametrize("clash, extra", [
    ("stream", {"stream": True}),
    ("thinking", {"thinking": THINKING}),
    ("output_config.format", {"output_config": {"format": {
        "type": "json_schema", "schema": {"type": "object"}}}}),
    ("a forced tool_choice", {"tools": [tool("read_file")],
                              "tool_choice": {"type": "tool", "name": "read_file"}}),
])
def test_r15_max_tokens_zero_combinations(client, clash, extra):
    with api_error(anthropic.BadRequestError, 400,
                   f"max_tokens: 0 cannot be combined with {clash}"):
        client.messages.create(**body(user("hi"), max_tokens=0, **extra))
