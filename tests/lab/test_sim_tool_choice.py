"""``tool_choice``, ``output_config.format``, ``stop_sequences``: answers the request allows.

One test per rule (API notes §3.6–3.7), for the plain model and for a scenario agent: a call
only to an offered tool, ``none`` calls nothing, ``any``/``tool`` force exactly the allowed
call with no text before it and an input that matches the tool's schema,
``disable_parallel_tool_use`` leaves one call, a structured answer is JSON matching the schema,
and a stop sequence ends the text with ``stop_reason: "stop_sequence"``.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest
from simcheck import user

from ctxlab.brain import Brain
from ctxlab.scenarios import Scenario, load, opening
from ctxlab.sim import Reply, Simulator
from ctxlab.tools.definitions import definitions

HAIKU = "claude-haiku-4-5"
WEATHER = {"name": "get_weather", "description": "Weather for a city.",
           "input_schema": {"type": "object", "required": ["city", "days"],
                            "properties": {"city": {"type": "string"},
                                           "days": {"type": "integer", "minimum": 1,
                                                    "maximum": 7}}}}
CLOCK = {"name": "get_time", "input_schema": {"type": "object", "properties": {}}}
ANSWER = {"type": "object", "additionalProperties": False, "required": ["title", "score", "tags"],
          "properties": {"title": {"type": "string"}, "score": {"type": "integer"},
                         "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                         "mood": {"enum": ["good", "bad"]}}}


def kinds(message: Any) -> list[tuple[str, str | None]]:
    return [(b.type, getattr(b, "name", None)) for b in message.content]


def create(client, *messages, **extra) -> Any:
    return client.messages.create(model=HAIKU, max_tokens=2000,
                                  messages=list(messages) or [user("hello")], **extra)


# The plain model

def test_plain_model_calls_a_tool_it_is_asked_for_under_auto(client):
    message = create(client, user("Use get_weather for Paris, 3 days."), tools=[WEATHER])
    assert message.stop_reason == "tool_use"
    call = message.content[-1]
    assert (call.name, call.input["days"]) == ("get_weather", 3)


def test_tool_choice_none_calls_no_tool(client):
    message = create(client, user("Use get_weather for Paris."), tools=[WEATHER],
                     tool_choice={"type": "none"})
    assert message.stop_reason == "end_turn" and kinds(message) == [("text", None)]


def test_tool_choice_any_forces_a_call_with_no_text_before_it(client):
    message = create(client, tools=[WEATHER, CLOCK], tool_choice={"type": "any"})
    assert message.stop_reason == "tool_use"
    assert [k for k, _ in kinds(message)] == ["tool_use"]
    assert message.content[0].name in ("get_weather", "get_time")


def test_tool_choice_tool_forces_that_tool_with_a_schema_valid_input(client):
    message = create(client, user("What time is it? Give 9 days."), tools=[CLOCK, WEATHER],
                     tool_choice={"type": "tool", "name": "get_weather"})
    assert kinds(message) == [("tool_use", "get_weather")]
    value = message.content[0].input
    assert set(value) == {"city", "days"} and isinstance(value["city"], str)
    assert 1 <= value["days"] <= 7  # 9 does not fit the schema, so it is not used


def test_output_format_gives_json_matching_the_schema(client):
    message = create(client, user("Rate the film. It was long. 8 of 10."),
                     output_config={"format": {"type": "json_schema", "schema": ANSWER}})
    value = json.loads(message.content[-1].text)
    assert set(value) == {"title", "score", "tags", "mood"}
    assert isinstance(value["title"], str) and isinstance(value["score"], int)
    assert value["tags"] and value["mood"] in ("good", "bad")


def test_the_structured_outputs_beta_output_format_is_honoured_only_under_its_beta(client):
    fmt = {"type": "json_schema", "schema": ANSWER}
    message = client.beta.messages.create(model=HAIKU, max_tokens=500, messages=[user("hi")],
                                          betas=["structured-outputs-2025-11-13"],
                                          extra_body={"output_format": fmt})
    assert set(json.loads(message.content[-1].text)) == set(ANSWER["properties"])
    with pytest.raises(anthropic.BadRequestError, match="output_format: Extra inputs"):
        create(client, extra_body={"output_format": fmt})


def test_a_stop_sequence_ends_the_text_before_it(client):
    message = create(client, user("hello there"), stop_sequences=["user text"])
    assert (message.stop_reason, message.stop_sequence) == ("stop_sequence", "user text")
    assert "user text" not in message.content[0].text
    assert message.content[0].text == "Received 1 message(s). Last "
    with client.messages.stream(model=HAIKU, max_tokens=200, messages=[user("hello there")],
                                stop_sequences=["user text"]) as stream:
        final = stream.get_final_message()
    assert (final.stop_reason, final.stop_sequence) == ("stop_sequence", "user text")
    assert final.usage.output_tokens == message.usage.output_tokens


class Twice:
    """A responder that calls ``get_time`` twice in one turn, with the same input."""

    def respond(self, view: Any) -> Reply:
        call = {"type": "tool_use", "name": "get_time", "input": {}}
        return Reply([{"type": "text", "text": "Checking twice."}, dict(call), dict(call)])

    def summarize(self, view: Any, instructions: str | None) -> str:
        return "nothing"


def test_disable_parallel_tool_use_leaves_one_call_even_of_identical_ones(sim, client):
    sim.responder = Twice()
    assert len(create(client, tools=[CLOCK]).content) == 3
    single = create(client, tools=[CLOCK], tool_choice={"type": "auto",
                                                        "disable_parallel_tool_use": True})
    assert kinds(single) == [("text", None), ("tool_use", "get_time")]


# A scenario agent

@pytest.fixture
def burst() -> tuple[Scenario, list[dict[str, Any]]]:
    """The parallel-burst scenario just before its turn of ten parallel calls."""
    scenario = load("parallel-burst")
    messages = [opening(scenario)]
    for k, step in enumerate(scenario.steps[:2]):
        found = " ".join(scenario.marker(fact) for fact in step.yields)
        messages += [{"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{k}", "name": step.call.tool,
             "input": step.call.input}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{k}", "content": found}]}]
    return scenario, messages


@pytest.fixture
def agent(sim: Simulator, burst) -> Simulator:
    sim.responder = Brain(burst[0])
    return sim


def test_agent_parallel_calls_become_one_with_disable_parallel_tool_use(agent, client, burst):
    plain = create(client, *burst[1], tools=definitions())
    assert [k for k, _ in kinds(plain)].count("tool_use") == 10
    single = create(client, *burst[1], tools=definitions(),
                    tool_choice={"type": "auto", "disable_parallel_tool_use": True})
    assert kinds(single)[1:] == [("tool_use", "run_command")] and len(single.content) == 2
    assert single.content[1].input == plain.content[1].input


def test_agent_never_calls_a_tool_the_request_did_not_offer(agent, client, burst):
    tools = definitions(["read_file", "search_docs"])
    message = create(client, *burst[1], tools=tools)
    assert message.stop_reason == "end_turn"
    assert kinds(message) == [("text", None)]
    assert "no run_command tool" in message.content[0].text


def test_agent_forced_any_keeps_its_own_calls_without_text(agent, client, burst):
    message = create(client, *burst[1], tools=definitions(), tool_choice={"type": "any"})
    assert [k for k, _ in kinds(message)] == ["tool_use"] * 10
    forced_one = create(client, *burst[1], tools=definitions(),
                        tool_choice={"type": "any", "disable_parallel_tool_use": True})
    assert kinds(forced_one) == [("tool_use", "run_command")]


def test_agent_forced_tool_calls_only_the_named_tool(agent, client, burst):
    message = create(client, *burst[1], tools=definitions(),
                     tool_choice={"type": "tool", "name": "search_docs"})
    assert kinds(message) == [("tool_use", "search_docs")]
    assert isinstance(message.content[0].input["query"], str)


def test_agent_calls_tools_under_structured_output_with_no_free_text(agent, client, burst):
    fmt = {"type": "json_schema", "schema": {"type": "object", "properties": {}}}
    message = create(client, *burst[1], tools=definitions(), output_config={"format": fmt})
    assert [k for k, _ in kinds(message)] == ["tool_use"] * 10


def test_agent_answers_a_structured_request_from_what_it_sees(agent, client, burst):
    schema = {"type": "object", "properties": {"status": {"type": "string"}},
              "required": ["status"], "additionalProperties": False}
    message = create(client, *burst[1],
                     output_config={"format": {"type": "json_schema", "schema": schema}})
    status = json.loads(message.content[-1].text)["status"]
    assert "node 1" in status  # what it would have said: the next step it cannot take
