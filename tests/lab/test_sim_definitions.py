"""Definitions, images, sampling and body guards: the API's 400s, one test per rule.

Tool definitions and ``tool_choice`` (API notes §3.6), base64 image limits, thinking budget
and sampling ranges, the ``anthropic-version`` header, and bodies no later step could handle
(lone surrogates, deep nesting). Each runs in-process and over HTTP. (A ``role: "system"``
message is a case of test_sim_bad_input.)
"""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

import anthropic
import pytest
from simcheck import api_error, user

HAIKU = "claude-haiku-4-5"
OLDER = "claude-sonnet-4-0"
SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}}


def body(*, model: str = HAIKU, **extra: Any) -> dict[str, Any]:
    return {"model": model, "max_tokens": 2048, "messages": [user("hi")], **extra}


def png_header(width: int, height: int) -> bytes:
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR"
            + struct.pack(">II", width, height) + b"\x08\x02\x00\x00\x00")


def image(data: str, media_type: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                        "data": data}}


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


# Tool definitions

def test_a_tool_name_with_a_dot_is_rejected(client):
    tools = [{"name": "files.read", "input_schema": SCHEMA}]
    with api_error(anthropic.BadRequestError, 400,
                   "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"):
        client.messages.create(**body(tools=tools))


def test_a_tool_name_over_128_characters_is_rejected(client):
    tools = [{"name": "ok", "input_schema": SCHEMA}, {"name": "x" * 129, "input_schema": SCHEMA}]
    with api_error(anthropic.BadRequestError, 400,
                   "tools.1.custom.name: String should have at most 128 characters"):
        client.messages.create(**body(tools=tools))


def test_duplicate_tool_names_are_rejected(client):
    tools = [{"name": "read", "input_schema": SCHEMA}, {"name": "read", "input_schema": SCHEMA}]
    with api_error(anthropic.BadRequestError, 400, "tools: Tool names must be unique."):
        client.messages.create(**body(tools=tools))


def test_a_non_object_input_schema_is_rejected(client):
    tools = [{"name": "read", "input_schema": {"type": "array", "items": {"type": "string"}}}]
    with api_error(anthropic.BadRequestError, 400,
                   "tools.0.custom.input_schema.type: Input should be 'object'"):
        client.messages.create(**body(tools=tools))


def test_an_input_schema_combining_schemas_at_its_top_level_is_rejected(client):
    schema = {"type": "object", "anyOf": [{"required": ["path"]}, {"required": ["url"]}]}
    with api_error(anthropic.BadRequestError, 400, "tools.0.custom.input_schema: input_schema "
                   "does not support oneOf, allOf, or anyOf at the top level"):
        client.messages.create(**body(tools=[{"name": "fetch", "input_schema": schema}]))


@pytest.mark.parametrize("broken", [
    {"type": "object", "properties": {"path": {"type": "text"}}},  # no such type
    {"type": "object", "properties": ["path"]},  # properties must be a map
    {"type": "object", "required": "path"},  # required must be a list
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": "1"}}},
])
def test_an_invalid_input_schema_is_rejected(client, broken):
    tools = [{"name": "read", "input_schema": broken}]
    with api_error(anthropic.BadRequestError, 400,
                   "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON "
                   "Schema draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more "
                   "about tool use at "
                   "https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview."):
        client.messages.create(**body(tools=tools))


def test_tool_choice_naming_a_missing_tool_is_rejected(client):
    tools = [{"name": "read", "input_schema": SCHEMA}]
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(**body(tools=tools, tool_choice={"type": "tool", "name": "write"}))
    assert info.value.body["error"]["message"].startswith("tool_choice.name:")
    assert "write" in info.value.body["error"]["message"]


def test_a_forced_tool_choice_without_tools_is_rejected(client):
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(**body(tool_choice={"type": "any"}))
    assert info.value.body["error"]["message"].startswith("tool_choice:")


def test_valid_definitions_pass(client):
    schema = {"type": "object", "$defs": {"p": {"type": "string"}},
              "properties": {"path": {"$ref": "#/$defs/p"}, "n": {"type": ["integer", "null"]},
                             "tags": {"type": "array", "items": {"type": "string"}}},
              "required": ["path"], "additionalProperties": False}
    tools = [{"name": "read-file_2", "input_schema": schema}]
    assert client.messages.create(**body(tools=tools)).stop_reason == "end_turn"


# Images

def test_an_image_over_5_mb_is_rejected(client):
    data = b64(png_header(10, 10) + b"\x00" * (4 * 1024 * 1024))
    with api_error(anthropic.BadRequestError, 400,
                   f"messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: "
                   f"{len(data)} bytes > 5242880 bytes"):
        client.messages.create(**body(messages=[user("look", image(data))]))


def test_an_unsupported_media_type_is_rejected(client):
    with api_error(anthropic.BadRequestError, 400,
                   "messages.0.content.0.image.source.base64.media_type: Input should be "
                   "'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"):
        client.messages.create(**body(messages=[user(image(b64(b"BM...."), "image/bmp"))]))


def test_image_data_that_is_not_base64_is_rejected(client):
    with api_error(anthropic.BadRequestError, 400,
                   "messages.0.content.0.image.source.base64.data: invalid base64 data"):
        client.messages.create(**body(messages=[user(image("not base64!"))]))


def test_an_image_over_8000_pixels_is_rejected_inside_a_tool_result(client):
    result = {"type": "tool_result", "tool_use_id": "toolu_1",
              "content": [image(b64(png_header(8001, 20)))]}
    messages = [user("go"), {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {}}]},
        {"role": "user", "content": [result]}]
    with api_error(anthropic.BadRequestError, 400,
                   "messages.2.content.0.tool_result.content.0.image.source.base64.data: At "
                   "least one of the image dimensions exceed max allowed size: 8000 pixels"):
        client.messages.create(**body(messages=messages))


def test_an_8000_pixel_image_is_accepted(client):
    assert client.messages.create(**body(messages=[user(image(b64(png_header(8000, 8))))]))


# Thinking and sampling (SDK 2.15 has no sampling arguments; other clients still send them)

def test_a_thinking_budget_under_1024_is_rejected(client):
    with api_error(anthropic.BadRequestError, 400, "thinking.enabled.budget_tokens: Input "
                   "should be greater than or equal to 1024"):
        client.messages.create(**body(thinking={"type": "enabled", "budget_tokens": 1023}))


def test_a_thinking_budget_not_below_max_tokens_is_rejected(client):
    with api_error(anthropic.BadRequestError, 400,
                   "`max_tokens` must be greater than `thinking.budget_tokens`."):
        client.messages.create(**body(thinking={"type": "enabled", "budget_tokens": 2048}))


def test_temperature_above_1_is_rejected(client):
    with api_error(anthropic.BadRequestError, 400,
                   "temperature: Input should be less than or equal to 1"):
        client.messages.create(**body(extra_body={"temperature": 3}))


def test_temperature_other_than_1_with_thinking_is_rejected(client):
    with api_error(anthropic.BadRequestError, 400,
                   "`temperature` may only be set to 1 when thinking is enabled"):
        client.messages.create(**body(extra_body={"temperature": 0.5},
                                      thinking={"type": "enabled", "budget_tokens": 1024}))


def test_temperature_with_top_p_is_rejected_on_4_5_and_accepted_before(client):
    with api_error(anthropic.BadRequestError, 400, "`temperature` and `top_p` cannot both be "
                   "specified for this model. Please use only one."):
        client.messages.create(**body(extra_body={"temperature": 0.5, "top_p": 0.9}))
    assert client.messages.create(**body(model=OLDER, extra_body={"temperature": 0.5,
                                                                  "top_p": 0.9}))


# Messages, headers and bodies

def test_a_missing_anthropic_version_header_is_rejected(post_raw):
    answer = post_raw(json.dumps(body()).encode(), headers={"x-api-key": "k"})
    assert answer.status_code == 400
    assert answer.json()["error"] == {"type": "invalid_request_error",
                                      "message": "anthropic-version: header is required"}


def test_a_lone_surrogate_is_a_400_not_a_dropped_connection(post_raw):
    raw = json.dumps(body()).replace('"hi"', '"a\\ud800b"').encode()
    answer = post_raw(raw)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert "messages.0.content.0.text" in error["message"]


@pytest.mark.parametrize("where", ["tool input", "tool schema"])
def test_deep_nesting_is_a_400_not_a_dropped_connection(post_raw, where):
    deep: Any = {}
    for _ in range(500):
        deep = {"a": deep}
    if where == "tool input":
        messages = [user("go"), {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": deep}]},
            user({"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"})]
        request = body(messages=messages)
    else:
        request = body(tools=[{"name": "read", "input_schema": {"type": "object",
                                                               "properties": deep}}])
    answer = post_raw(json.dumps(request).encode())
    assert answer.status_code == 400
    assert answer.json()["error"]["type"] == "invalid_request_error"
