"""Context editing (R27–R31) and server-side compaction (R32–R36), API notes §5–§6 and §8."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest
from simcheck import (
    COMPACT_BETA,
    EDITING_BETA,
    ToolLoop,
    api_error,
    assert_usage_ok,
    assistant,
    cached,
    count,
    count_response,
    create,
    dump,
    run_loop,
    sse_events,
    text,
    tool,
    tool_result,
    tool_use,
    user,
)

from ctxlab.sim import EchoResponder

OPUS5 = "claude-opus-5"
SONNET46 = "claude-sonnet-4-6"
TOOLS = [tool("read_file"), tool("grep")]
CLEAR = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"


class Recorder(EchoResponder):
    """The echo model, remembering what it was shown."""

    def __init__(self) -> None:
        self.views: list[Any] = []

    def respond(self, view: Any) -> Any:
        self.views.append(view)
        return super().respond(view)


def history(n: int, size: int = 300, names: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """A task and ``n`` answered tool calls, the oldest first."""
    messages = [user(text(200, "task"))]
    for k in range(n):
        name = names[k] if k < len(names) else "read_file"
        messages.append(assistant(tool_use(f"toolu_{k:02d}", name, path=f"f{k}.py")))
        messages.append(user(tool_result(f"toolu_{k:02d}", text(size, f"result-{k}"))))
    return messages


def editing(*edits: dict[str, Any], n: int = 6, **extra: Any) -> dict[str, Any]:
    return {"model": OPUS5, "max_tokens": 64, "betas": [EDITING_BETA], "tools": TOOLS,
            "messages": history(n, names=extra.pop("names", ())),
            "context_management": {"edits": list(edits)}, **extra}


def clear(trigger: int = 1_000, **options: Any) -> dict[str, Any]:
    return {"type": CLEAR, "trigger": {"type": "input_tokens", "value": trigger}, **options}


def results_seen(view: Any) -> list[Any]:
    return [b["content"] for m in view.messages for b in m["content"]
            if b.get("type") == "tool_result"]


def checked(client: anthropic.Anthropic, request: dict[str, Any]) -> Any:
    message = create(client, request)
    assert_usage_ok(client, request, message)
    return message


def applied(message: Any) -> list[dict[str, Any]]:
    return [e.model_dump(exclude_none=True) for e in message.context_management.applied_edits]


# R27 — the beta header is required

def test_r27_context_management_without_beta_header(client):
    request = {"model": OPUS5, "max_tokens": 64, "messages": [user("hi")]}
    with api_error(anthropic.BadRequestError, 400,
                   "context_management: Extra inputs are not permitted"):
        client.messages.create(**request, extra_body={"context_management": {"edits": [clear()]}})


# R28 — clear_tool_uses_20250919

def test_r28_clears_oldest_results_beyond_keep(sim, client):
    sim.responder = recorder = Recorder()
    request = editing(clear())
    message = checked(client, request)
    original = count(client, {**request, "context_management": {"edits": []}})
    after = count(client, request)
    assert applied(message) == [{"type": CLEAR, "cleared_tool_uses": 3,
                                 "cleared_input_tokens": original - after}]
    seen = results_seen(recorder.views[-1])
    sent = [b["content"] for m in request["messages"] for b in m["content"]
            if b["type"] == "tool_result"]
    assert seen[3:] == sent[3:]  # the 3 most recent are kept
    assert all(s != o for s, o in zip(seen[:3], sent[:3], strict=True))
    assert len(set(seen[:3])) == 1  # one placeholder text for every cleared result
    assert original - after > 3 * 250


@pytest.mark.parametrize("margin, clears", [(0, False), (1, True)])
def test_r28_applies_only_when_the_prompt_exceeds_the_trigger(client, margin, clears):
    original = count(client, editing())
    message = checked(client, editing(clear(trigger=original - margin)))
    assert bool(applied(message)) == clears


@pytest.mark.parametrize("size, clears", [(16_000, False), (17_000, True)])
def test_r28_default_trigger_is_100000_input_tokens(client, size, clears):
    request = {**editing({"type": CLEAR}), "messages": history(6, size=size)}
    assert (count(client, {**request, "context_management": {"edits": []}}) > 100_000) == clears
    edits = applied(checked(client, request))
    assert [e["cleared_tool_uses"] for e in edits] == ([3] if clears else [])


def test_r28_tool_uses_trigger(client):
    assert applied(checked(client, editing({"type": CLEAR, "trigger": {
        "type": "tool_uses", "value": 6}}))) == []
    edits = applied(checked(client, editing({"type": CLEAR, "trigger": {
        "type": "tool_uses", "value": 5}, "keep": {"type": "tool_uses", "value": 4}})))
    assert [e["cleared_tool_uses"] for e in edits] == [2]


def test_r28_clear_at_least_skips_a_small_edit(client):
    full = checked(client, editing(clear()))
    freed = applied(full)[0]["cleared_input_tokens"]
    skipped = editing(clear(clear_at_least={"type": "input_tokens", "value": freed + 1}))
    message = checked(client, skipped)
    assert applied(message) == []
    assert count(client, skipped) == count(client, editing())
    assert applied(checked(client, editing(clear(
        clear_at_least={"type": "input_tokens", "value": freed})))) == applied(full)


def test_r28_excluded_tools_are_never_cleared(sim, client):
    sim.responder = recorder = Recorder()
    names = ("grep", "read_file", "grep", "read_file", "read_file", "read_file")
    message = checked(client, editing(clear(exclude_tools=["grep"]), names=names))
    assert applied(message)[0]["cleared_tool_uses"] == 1  # 4 read_file results, keep 3
    seen = results_seen(recorder.views[-1])
    originals = [text(300, f"result-{k}") for k in range(6)]
    kept = [k for k in range(6) if seen[k] == originals[k]]
    assert kept == [0, 2, 3, 4, 5]


def test_r28_clear_tool_inputs(sim, client):
    sim.responder = recorder = Recorder()
    checked(client, editing(clear(clear_tool_inputs=True)))
    inputs = [b["input"] for m in recorder.views[-1].messages for b in m["content"]
              if b.get("type") == "tool_use"]
    assert inputs[:3] == [{}, {}, {}] and inputs[3:] == [{"path": f"f{k}.py"} for k in (3, 4, 5)]


def test_r28_applied_edits_arrive_in_the_streamed_message_delta(client, post_raw):
    request = editing(clear())
    plain = checked(client, request)
    with client.beta.messages.stream(**request) as stream:
        final = stream.get_final_message()
    assert applied(final) == applied(plain) != []
    raw = {k: v for k, v in request.items() if k != "betas"}
    answer = post_raw(json.dumps({**raw, "stream": True}).encode(),
                      headers={"x-api-key": "k", "anthropic-version": "2023-06-01",
                               "anthropic-beta": EDITING_BETA})
    delta = [data for name, data in sse_events(answer.content) if name == "message_delta"]
    assert delta[0]["context_management"]["applied_edits"] == applied(plain)


def test_r28_the_clients_history_is_not_modified(client):
    request = editing(clear())
    checked(client, request)
    again = {**request, "context_management": {"edits": []}}
    assert count(client, again) > count(client, request)  # nothing was stored server-side
    assert applied(checked(client, request))[0]["cleared_tool_uses"] == 3


def test_r28_a_request_given_in_process_is_not_modified(sim):
    """The simulator edits blocks of its own, never the caller's: a body handed over in
    process (no JSON in between) is as it was after its results were cleared."""
    from ctxlab.sim.schema import parse

    body = {k: v for k, v in editing(clear(clear_tool_inputs=True)).items() if k != "betas"}
    before = json.dumps(body, sort_keys=True)
    _, _, applied_edits = sim._prepare(parse(body, {"anthropic-beta": EDITING_BETA}))
    assert applied_edits and applied_edits[0]["cleared_tool_uses"] == 3
    assert json.dumps(body, sort_keys=True) == before


# R29 — clearing invalidates the cache from the first cleared block

def test_r29_entries_before_the_first_cleared_block_still_hit(client):
    system = [cached(text(600, "system"))]
    plain = editing(clear(trigger=10**9), system=system, cache_control={"type": "ephemeral"})
    first = checked(client, plain)
    assert applied(first) == [] and first.usage.cache_read_input_tokens == 0
    probe = {"model": OPUS5, "messages": [user("x")]}
    system_end = count(client, {**probe, "tools": TOOLS, "system": system}) - count(client, probe)
    cleared = {**plain, "context_management": {"edits": [clear()]}}
    message = checked(client, cleared)
    after = count(client, cleared)
    assert applied(message)[0]["cleared_tool_uses"] == 3
    assert message.usage.cache_read_input_tokens == system_end
    assert message.usage.cache_creation_input_tokens == after - system_end
    again = checked(client, cleared)  # the edited prompt is now the cached prefix
    assert (again.usage.cache_read_input_tokens, again.usage.cache_creation_input_tokens) == (
        after, 0)


# R30 — clear_thinking_20251015

def test_r30_clear_thinking_must_be_first(client):
    request = editing(clear(), {"type": CLEAR_THINKING, "keep": "all"})
    with api_error(anthropic.BadRequestError, 400,
                   "context_management.edits.1: clear_thinking_20251015 must be the first edit "
                   "when combined with other edits"):
        create(client, request)


def test_r30_keeping_thinking_keeps_the_cache_clearing_it_invalidates(sim, client):
    sim.responder = ToolLoop(steps=3)
    start = {"model": SONNET46, "max_tokens": 2048, "betas": [EDITING_BETA], "tools": TOOLS,
             "system": [cached(text(1_100, "system"))], "cache_control": {"type": "ephemeral"},
             "thinking": {"type": "enabled", "budget_tokens": 1024},
             "messages": [user(text(100, "loop task"))]}
    loop = run_loop(client, start)
    assert len(loop["messages"]) == 7  # task + 3 x (thinking & tool_use, tool_result)
    keep_all = {**loop, "context_management": {"edits": [{"type": CLEAR_THINKING,
                                                           "keep": "all"}]}}
    total = count(client, keep_all)
    message = checked(client, keep_all)
    assert applied(message) == [] and message.usage.cache_read_input_tokens == total
    keep_one = {**loop, "context_management": {"edits": [{
        "type": CLEAR_THINKING, "keep": {"type": "thinking_turns", "value": 1}}]}}
    message = checked(client, keep_one)
    after = count(client, keep_one)
    assert applied(message) == [{"type": CLEAR_THINKING, "cleared_thinking_turns": 2,
                                 "cleared_input_tokens": total - after}]
    before_first_cleared = count(client, {**loop, "messages": loop["messages"][:1]})
    assert message.usage.cache_read_input_tokens == before_first_cleared
    assert message.usage.cache_creation_input_tokens == after - before_first_cleared


# R31 — count_tokens with context_management

def test_r31_count_tokens_reports_original_and_edited(client):
    request = editing(clear())
    counted = count_response(client, request)
    original = count(client, {**request, "context_management": {"edits": []}})
    assert counted.context_management.original_input_tokens == original
    assert counted.input_tokens < original
    message = checked(client, request)  # create's total equals the edited count
    assert applied(message)[0]["cleared_input_tokens"] == original - counted.input_tokens
    plain = count_response(client, {k: v for k, v in request.items()
                                    if k != "context_management"})
    assert plain.input_tokens == original and plain.context_management is None


# R32–R36 — compaction (compact_20260112)

LONG = [user(text(30_000, "long-1")), assistant("Noted."), user(text(25_000, "long-2"))]


def compacting(messages: list[dict[str, Any]] = LONG, trigger: int | None = 50_000,
               **options: Any) -> dict[str, Any]:
    edit: dict[str, Any] = {"type": "compact_20260112", **options}
    if trigger is not None:
        edit["trigger"] = {"type": "input_tokens", "value": trigger}
    return {"model": SONNET46, "max_tokens": 256, "betas": [COMPACT_BETA], "messages": messages,
            "context_management": {"edits": [edit]}}


def iteration_types(message: Any) -> list[str]:
    return [it.type for it in message.usage.iterations]


def test_r32_trigger_below_fifty_thousand_rejected(client):
    with api_error(anthropic.BadRequestError, 400,
                   "context_management.edits.0.trigger.value: the compaction trigger must be at "
                   "least 50000 input tokens"):
        create(client, compacting(trigger=49_999))


def test_r32_default_trigger_does_not_compact_below_150000(client):
    request = compacting(trigger=None)
    assert 50_000 < count(client, request) < 150_000
    message = checked(client, request)
    assert [b.type for b in message.content] == ["text"]
    assert iteration_types(message) == ["message"]


def test_r32_default_trigger_compacts_at_150000(client):
    request = compacting([user(text(151_000, "huge"))], trigger=None)
    assert count(client, request) >= 150_000
    message = checked(client, request)
    assert [b.type for b in message.content] == ["compaction", "text"]


def test_r33_compaction_block_then_reply_and_iterations(client):
    request = compacting()
    before = count(client, request)
    message = checked(client, request)
    assert [b.type for b in message.content] == ["compaction", "text"]
    assert message.content[0].content.startswith("Summary of the conversation")
    assert iteration_types(message) == ["compaction", "message"]
    compaction_step, message_step = message.usage.iterations
    assert compaction_step.input_tokens == before
    assert compaction_step.output_tokens > 0
    assert (message.usage.input_tokens, message.usage.output_tokens) == (
        message_step.input_tokens, message_step.output_tokens)
    assert message.usage.input_tokens < before // 10
    assert message.stop_reason == "end_turn"


def test_r33_every_response_under_the_beta_has_iterations(client):
    request = {"model": SONNET46, "max_tokens": 64, "betas": [COMPACT_BETA],
               "messages": [user("hi")]}
    message = checked(client, request)
    assert iteration_types(message) == ["message"]


def test_r34_pause_after_compaction(client):
    request = compacting(pause_after_compaction=True)
    message = checked(client, request)
    assert [b.type for b in message.content] == ["compaction"]
    assert message.stop_reason == "compaction"
    assert iteration_types(message) == ["compaction"]
    resumed = {**request, "messages": [*LONG, assistant(*dump(message.content)),
                                       user("Please continue.")]}
    follow = checked(client, resumed)
    assert [b.type for b in follow.content] == ["text"]
    assert iteration_types(follow) == ["message"]


def test_r35_everything_before_the_last_compaction_block_is_dropped(client):
    message = checked(client, compacting())
    tail = [assistant(*dump(message.content)), user("Next question.")]
    later = compacting([*LONG, *tail])
    other_past = compacting([user("a different, short past"), *tail])
    assert count(client, later) == count(client, other_past) < 1_000
    follow = checked(client, later)
    assert iteration_types(follow) == ["message"]  # re-using the block costs no compaction
    assert [b.type for b in follow.content] == ["text"]


def test_r35_last_compaction_block_wins(client):
    first = checked(client, compacting())
    second_summary = {"type": "compaction", "content": "Second summary: " + text(20, "second")}
    tail = [assistant(*dump(first.content)), user("More."), assistant(second_summary, "ok"),
            user("Again.")]
    assert count(client, compacting([*LONG, *tail])) == count(client, compacting(
        [user("x"), assistant(second_summary, "ok"), user("Again.")]))


def test_r35_null_compaction_block_is_a_noop(client):
    with_null = [*LONG, assistant({"type": "compaction", "content": None}, "Noted again."),
                 user("Next.")]
    without = [*LONG, assistant("Noted again."), user("Next.")]
    request = compacting(with_null, trigger=10**6)
    assert count(client, request) == count(client, compacting(without, trigger=10**6))
    assert count(client, request) > 50_000
    checked(client, request)


def test_r36_streamed_compaction_block(sim, client, post_raw):
    request = compacting()
    plain = checked(client, request)
    with client.beta.messages.stream(**request) as stream:
        final = stream.get_final_message()
    assert [b.model_dump() for b in final.content] == [b.model_dump() for b in plain.content]
    assert final.usage.model_dump() == plain.usage.model_dump()
    raw = {k: v for k, v in request.items() if k != "betas"}
    answer = post_raw(json.dumps({**raw, "stream": True}).encode(),
                      headers={"x-api-key": "k", "anthropic-version": "2023-06-01",
                               "anthropic-beta": COMPACT_BETA})
    events = sse_events(answer.content)
    block = [data for _, data in events if data.get("index") == 0]
    assert [d["type"] for d in block] == ["content_block_start", "content_block_delta",
                                          "content_block_stop"]
    assert block[0]["content_block"]["type"] == "compaction"
    assert block[1]["delta"] == {"type": "compaction_delta",
                                 "content": plain.content[0].content}
