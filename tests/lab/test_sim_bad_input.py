"""A client's mistake is a 4xx naming the field, never a 500 or a traceback (DESIGN §3).

Raw bytes go to the simulator in-process and to the HTTP server (``ctxlab serve``); the server's
request log and stderr are checked for errors and tracebacks. A seeded property test mutates
every field of a rich valid request and feeds the result to ``Simulator.handle``.
"""

from __future__ import annotations

import copy
import json
import socket
from typing import Any

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from simcheck import api_error, user

from ctxlab.sim import Simulator

pytestmark = pytest.mark.reliability  # outside make test: make reliability (tests/conftest.py)

BASE: dict[str, Any] = {"model": "claude-haiku-4-5", "max_tokens": 64,
                        "messages": [{"role": "user", "content": "hi"}]}
BLOCK_TAGS = ("'text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', "
              "'redacted_thinking', 'compaction', 'server_tool_use', 'web_search_tool_result', "
              "'web_fetch_tool_result', 'code_execution_tool_result', "
              "'bash_code_execution_tool_result'")


def with_(path: str, value: Any, base: dict[str, Any] = BASE) -> bytes:
    """``base`` with the dotted ``path`` set to ``value`` (or deleted when value is DELETE)."""
    request = copy.deepcopy(base)
    *parents, last = path.split(".")
    node: Any = request
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key: Any = int(last) if isinstance(node, list) else last
    if value is DELETE:
        del node[key]
    else:
        node[key] = value
    return json.dumps(request).encode()


DELETE = object()
TOOLS_CHAT = {**BASE, "tools": [{"name": "read_file", "input_schema": {"type": "object"}}],
              "messages": [{"role": "user", "content": "go"},
                           {"role": "assistant", "content": [
                               {"type": "tool_use", "id": "toolu_1", "name": "read_file",
                                "input": {}}]},
                           {"role": "user", "content": [
                               {"type": "tool_result", "tool_use_id": "toolu_1"}]}]}
EDITS = {**BASE, "model": "claude-sonnet-4-6", "context_management": {"edits": [
    {"type": "clear_tool_uses_20250919"}]}}

CASES: dict[str, tuple[bytes, int, str]] = {
    "malformed json": (b'{"model": "claude-haiku-4-5", ', 400,
                       "There was an error parsing the body: "),
    "not utf-8": (b'{"model": "\xff\xfe"}', 400, "There was an error parsing the body: "),
    "body is a list": (b"[1, 2]", 400, "body: Input should be a valid dictionary"),
    "missing model": (with_("model", DELETE), 400, "model: Field required"),
    "missing max_tokens": (with_("max_tokens", DELETE), 400, "max_tokens: Field required"),
    "missing messages": (with_("messages", DELETE), 400, "messages: Field required"),
    "max_tokens string": (with_("max_tokens", "64"), 400,
                          "max_tokens: Input should be a valid integer"),
    "max_tokens bool": (with_("max_tokens", True), 400,
                        "max_tokens: Input should be a valid integer"),
    "messages object": (with_("messages", {}), 400, "messages: Input should be a valid list"),
    "message not object": (with_("messages.0", "hi"), 400,
                           "messages.0: Input should be a valid dictionary"),
    "missing role": (with_("messages.0.role", DELETE), 400, "messages.0.role: Field required"),
    "content number": (with_("messages.0.content", 5), 400,
                       "messages.0.content: Input should be a valid string"),
    "unknown role": (with_("messages.0.role", "tool"), 400,
                     "messages.0.role: Input tag 'tool' found using 'type' does not match any "
                     "of the expected tags: 'user', 'assistant'"),
    "system role": (with_("messages.0.role", "system"), 400,
                    'messages: Unexpected role "system". The Messages API accepts a top-level '
                    '`system` parameter, not "system" as an input message role.'),
    "unknown block type": (with_("messages.0.content", [{"type": "video", "url": "x"}]), 400,
                           "messages.0.content.0: Input tag 'video' found using 'type' does not "
                           f"match any of the expected tags: {BLOCK_TAGS}"),
    "text missing": (with_("messages.0.content", [{"type": "text"}]), 400,
                     "messages.0.content.0.text: Field required"),
    "unknown field": (with_("temprature", 0.5), 400,
                      "temprature: Extra inputs are not permitted"),
    "stream string": (with_("stream", "yes"), 400, "stream: Input should be a valid boolean"),
    "system number": (with_("system", 5), 400, "system: Input should be a valid string"),
    "system block type": (with_("system", [{"type": "image", "source": {}}]), 400,
                          "system.0: Input tag 'image' found using 'type' does not match any "
                          "of the expected tags: 'text'"),
    "tools object": (with_("tools", {}), 400, "tools: Input should be a valid list"),
    "tool without schema": (with_("tools", [{"name": "t"}]), 400,
                            "tools.0.input_schema: Field required"),
    "tool_use without id": (with_("messages.1.content.0.id", DELETE, TOOLS_CHAT), 400,
                            "messages.1.content.0.id: Field required"),
    "tool_use_id number": (with_("messages.2.content.0.tool_use_id", 1, TOOLS_CHAT), 400,
                           "messages.2.content.0.tool_use_id: Input should be a valid string"),
    "tool_result content number": (with_("messages.2.content.0.content", 7, TOOLS_CHAT), 400,
                                   "messages.2.content.0.content: Input should be a valid "
                                   "string"),
    "tool_choice type": (with_("tool_choice", {"type": "sometimes"}, TOOLS_CHAT), 400,
                         "tool_choice: Input tag 'sometimes' found using 'type' does not match "
                         "any of the expected tags: 'auto', 'any', 'tool', 'none'"),
    "cache_control string": (with_("messages.0.content", [
        {"type": "text", "text": "hi", "cache_control": "yes"}]), 400,
        "messages.0.content.0.cache_control: Input should be a valid dictionary"),
    "cache_control type": (with_("cache_control", {"type": "persistent"}), 400,
                           "cache_control: Input tag 'persistent' found using 'type' does not "
                           "match any of the expected tags: 'ephemeral'"),
    "cache_control ttl": (with_("system", [{"type": "text", "text": "x", "cache_control": {
        "type": "ephemeral", "ttl": "10m"}}]), 400,
        "system.0.cache_control.ttl: Input should be '5m' or '1h'"),
    "cache_control on tool": (with_("tools.0.cache_control", 1, TOOLS_CHAT), 400,
                              "tools.0.cache_control: Input should be a valid dictionary"),
    "cache_control on thinking": (with_("messages", [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "t", "signature": "s",
             "cache_control": {"type": "ephemeral"}}]}]), 400,
        "messages.1.content.0.cache_control: Extra inputs are not permitted"),
    "thinking type": (with_("thinking", {"type": "sometimes"}), 400,
                      "thinking: Input tag 'sometimes' found using 'type' does not match any of "
                      "the expected tags: 'enabled', 'disabled', 'adaptive'"),
    "thinking budget": (with_("thinking", {"type": "enabled"}), 400,
                        "thinking.budget_tokens: Field required"),
    "output_config number": (with_("output_config", 5), 400,
                             "output_config: Input should be a valid dictionary"),
    "image without data": (with_("messages.0.content", [{"type": "image", "source": {
        "type": "base64", "media_type": "image/png"}}]), 400,
        "messages.0.content.0.source.data: Field required"),
    "edit unknown": (with_("context_management.edits.0.type", "clear_everything", EDITS), 400,
                     "context_management.edits.0: Input tag 'clear_everything' found using "
                     "'type' does not match any of the expected tags: "
                     "'clear_tool_uses_20250919', 'clear_thinking_20251015', "
                     "'compact_20260112'"),
    "edit trigger string": (with_("context_management.edits.0.trigger", "soon", EDITS), 400,
                            "context_management.edits.0.trigger: Input should be a valid "
                            "dictionary"),
    "edit keep value": (with_("context_management.edits.0.keep", {
        "type": "tool_uses", "value": "3"}, EDITS), 400,
        "context_management.edits.0.keep.value: Input should be a non-negative integer"),
    "edit exclude_tools": (with_("context_management.edits.0.exclude_tools", "grep", EDITS),
                           400, "context_management.edits.0.exclude_tools: Input should be a "
                           "valid list"),
    "unknown model": (with_("model", "claude-imaginary-9"), 404, "model: claude-imaginary-9"),
}
BETA_HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01",
                "content-type": "application/json",
                "anthropic-beta": "context-management-2025-06-27"}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_a_4xx_naming_the_field(post_raw, transport, capsys, request, case):
    raw, status, message = CASES[case]
    answer = post_raw(raw, headers=BETA_HEADERS)
    assert answer.status_code == status
    error = answer.json()
    assert error["type"] == "error"
    assert error["error"]["type"] == ("not_found_error" if status == 404
                                      else "invalid_request_error")
    if message.endswith(": "):
        assert error["error"]["message"].startswith(message)
    else:
        assert error["error"]["message"] == message
    assert answer.headers["request-id"] == error["request_id"]
    _assert_quiet(transport, capsys, request, status)


def _assert_quiet(transport: str, capsys: pytest.CaptureFixture[str],
                  request: pytest.FixtureRequest, *statuses: int) -> None:
    """No traceback on stderr; over HTTP, one log line per request with the 4xx status."""
    assert "Traceback" not in capsys.readouterr().err
    if transport == "http":
        log = request.getfixturevalue("server_log")
        assert [line.split('" ')[-1].split()[0] for line in log] == [str(s) for s in statuses]


def test_unknown_path_is_404(post_raw, transport, capsys, request):
    answer = post_raw(json.dumps(BASE).encode(), path="/v1/complete")
    assert answer.status_code == 404
    assert answer.json()["error"] == {"type": "not_found_error", "message": "Not found"}
    _assert_quiet(transport, capsys, request, 404)


def test_unknown_model_through_the_sdk(client):
    with api_error(anthropic.NotFoundError, 404, "model: claude-imaginary-9",
                   error_type="not_found_error"):
        client.messages.create(model="claude-imaginary-9", max_tokens=10, messages=[user("hi")])


def test_unknown_block_type_through_the_sdk(client):
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(model="claude-haiku-4-5", max_tokens=10,
                               messages=[{"role": "user", "content": [{"type": "video"}]}])
    assert info.value.body["error"]["message"].startswith(
        "messages.0.content.0: Input tag 'video' found using 'type'")


def _raw_http(server: Any, head: bytes) -> bytes:
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=5) as conn:
        conn.sendall(head)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("length, status", [("abc", 400), ("-5", 400), ("40000000", 413)])
def test_http_bad_content_length(server, server_log, capsys, length, status):
    head = (f"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()
    reply = _raw_http(server, head)
    assert reply.startswith(f"HTTP/1.1 {status} ".encode())
    assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["type"] == "error"
    assert "Traceback" not in capsys.readouterr().err
    assert len(server_log) == 1 and f" {status} " in server_log[0]


# Property: any mutation of any field of a rich request is answered, never raised.

RICH: dict[str, Any] = {
    "model": "claude-sonnet-4-6", "max_tokens": 64, "temperature": 0.5,
    "metadata": {"user_id": "u1"}, "output_config": {"effort": "medium"}, "stream": False,
    "system": [{"type": "text", "text": "Be brief.",
                "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
    "tools": [{"name": "read_file", "description": "Read a file.",
               "input_schema": {"type": "object"},
               "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
    "tool_choice": {"type": "auto", "disable_parallel_tool_use": False},
    "thinking": {"type": "disabled"},
    "messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "go"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": "iVBORw0KGgo="}}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "reading"},
            {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": False,
             "content": [{"type": "text", "text": "body"}]},
            {"type": "text", "text": "thanks", "cache_control": {"type": "ephemeral"}}]},
    ],
    "context_management": {"edits": [
        {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 10},
         "keep": {"type": "tool_uses", "value": 0},
         "clear_at_least": {"type": "input_tokens", "value": 0}, "exclude_tools": ["grep"],
         "clear_tool_inputs": True},
        {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000},
         "pause_after_compaction": False, "instructions": "Summarize."}]},
}
RICH_HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01",
                "anthropic-beta": "context-management-2025-06-27,compact-2026-01-12"}


def _paths(node: Any, prefix: str = "") -> list[str]:
    found = []
    items = enumerate(node) if isinstance(node, list) else node.items()
    for key, value in items:
        path = f"{prefix}.{key}" if prefix else str(key)
        found.append(path)
        if isinstance(value, dict | list) and value:
            found.extend(_paths(value, path))
    return found


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10**6) | st.floats(allow_nan=False)
    | st.sampled_from(["", " ", "text", "5m", "1h", "ephemeral", "toolu_1", "user", "assistant",
                       "input_tokens", "tool_uses", "all", "enabled", "compaction", "image"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "text", "value", "ttl", "content", "id", "name", "input",
                         "source", "data", "cache_control", "tool_use_id", "role", "edits"]),
        inner, max_size=3),
    max_leaves=8,
)
MUTATION = st.tuples(st.sampled_from(_paths(RICH)), JSON | st.just(DELETE))


def test_rich_request_is_valid():
    answer = Simulator().handle("POST", "/v1/messages", RICH_HEADERS, json.dumps(RICH).encode())
    assert answer.status == 200, answer.body


WRONG = (None, True, -1, 7, 1.5, "", "x", [], [1], {}, {"type": "x"}, DELETE)


def _answer(raw: bytes) -> int:
    """Status of ``raw`` sent to a fresh simulator; a crash or a 500 fails the test."""
    answer = Simulator().handle("POST", "/v1/messages", RICH_HEADERS, raw)
    assert answer.status in (200, 400, 404)
    if answer.status != 200:
        error = json.loads(answer.body)
        assert error["type"] == "error" and error["error"]["message"]
        assert error["error"]["type"] in ("invalid_request_error", "not_found_error")
    return answer.status


def test_every_field_with_every_wrong_value():
    statuses = [_answer(with_(path, value, RICH)) for path in _paths(RICH) for value in WRONG]
    assert statuses.count(400) > len(statuses) // 2  # most wrong values are caught ...
    assert 200 in statuses  # ... and optional fields may be dropped or nulled


@settings(max_examples=300, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MUTATION, min_size=1, max_size=3) | st.binary(max_size=64).map(lambda b: [b]))
def test_any_mutation_is_answered_with_a_status_never_an_exception(mutations):
    if isinstance(mutations[0], bytes):
        raw = mutations[0]
    else:
        request: dict[str, Any] = copy.deepcopy(RICH)
        for path, value in mutations:
            try:
                raw_once = with_(path, value, request)
            except (KeyError, IndexError, TypeError):
                continue  # an earlier mutation removed the parent
            request = json.loads(raw_once)
        raw = json.dumps(request).encode()
    _answer(raw)
