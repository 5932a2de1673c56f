"""The Messages request's remaining documented fields, the ``anthropic-beta`` header and tool
types, validated as the API validates them (SDK 2.17.0 ``MessageCreateParams``; API notes §3)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctxlab.sim import Simulator

BASE: dict[str, Any] = {"model": "claude-haiku-4-5", "max_tokens": 32,
                        "messages": [{"role": "user", "content": "hi"}]}
HEAD = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
FALLBACK = "server-side-fallback-2026-07-01"


def send(extra: dict[str, Any], beta: str = "") -> tuple[int, dict[str, Any]]:
    headers = dict(HEAD, **({"anthropic-beta": beta} if beta else {}))
    answer = Simulator().handle("POST", "/v1/messages", headers,
                                json.dumps({**BASE, **extra}).encode())
    return answer.status, json.loads(answer.body)


@pytest.mark.parametrize("extra", [
    {"container": "container_011CPR5CNjB747bTd36fQLFk"},
    {"container": {"id": None, "skills": [{"type": "anthropic", "skill_id": "pptx"}]}},
    {"container": None},
])
def test_documented_fields_are_accepted(extra) -> None:
    status, body = send(extra)
    assert status == 200, body


@pytest.mark.parametrize("extra, message", [
    ({"container": 5}, "container: Input should be a valid string or dictionary"),
    ({"container": {"name": "x"}}, "container.name: Extra inputs are not permitted"),
    ({"service_tier": "priority"}, "service_tier: Input should be 'auto' or 'standard_only'"),
    ({"metadata": {"user_id": 3}}, "metadata.user_id: Input should be a valid string"),
    ({"speed": "slow"}, "speed: Input should be 'standard' or 'fast'"),
    ({"diagnostics": {"previous_message_id": 7}},
     "diagnostics.previous_message_id: Input should be a valid string"),
])
def test_bad_values_are_a_400_naming_the_field(extra, message) -> None:
    status, body = send(extra)
    assert (status, body["error"]["type"], body["error"]["message"]) == (
        400, "invalid_request_error", message)


def test_fallbacks_under_their_beta_answer_from_the_requested_model() -> None:
    assert send({"fallbacks": [{"model": "claude-opus-4-8"}]})[1]["error"]["message"] == (
        "fallbacks: Extra inputs are not permitted")  # not without the beta
    status, body = send({"fallbacks": [{"model": "claude-opus-4-8"}]}, FALLBACK)
    assert status == 200 and body["model"] == "claude-haiku-4-5"  # it never declines
    assert send({"fallbacks": "default"}, FALLBACK)[0] == 200
    for chain, message in (([{"model": "claude-nope"}], "fallbacks.0.model: claude-nope cannot"),
                           ([{"model": "claude-opus-4-8", "max_tokens": 9}],
                            "fallbacks.0.max_tokens: Extra inputs"),
                           ([{"model": "claude-haiku-4-5"}], "fallbacks.0.model: a fallback "
                            "must differ")):
        status, body = send({"fallbacks": chain}, FALLBACK)
        assert status == 400 and body["error"]["message"].startswith(message), body
    status, body = send({"fallback_credit_token": "fct_x"}, "fallback-credit-2026-07-01")
    assert status == 400 and body["error"]["message"].startswith("fallback_credit_token:")


def test_an_unknown_beta_is_refused_as_the_api_words_it() -> None:
    status, body = send({}, "context-management-2025-06-27, made-up-2099-01-01")
    assert status == 400 and body["error"]["message"] == (
        "Unexpected value(s) `made-up-2099-01-01` for the `anthropic-beta` header. Please "
        "consult our documentation at docs.anthropic.com or try again without the header.")
    assert send({}, "interleaved-thinking-2025-05-14,claude-code-20250219")[0] == 200
    listing = Simulator().handle("GET", "/v1/models", dict(HEAD, **{"anthropic-beta": "nope"}),
                                 b"")
    assert listing.status == 400  # on every route


def test_an_unknown_tool_type_is_refused_as_an_unknown_tag() -> None:
    status, body = send({"tools": [{"type": "web_search_20990101", "name": "web_search"}]})
    message = body["error"]["message"]
    assert status == 400 and message.startswith(
        "tools.0: Input tag 'web_search_20990101' found using 'type' does not match any of the "
        "expected tags: 'custom', 'bash_20241022'"), message
    known = {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}
    assert send({"tools": [known]})[0] == 200
