"""Server tools simulated offline (docs: web-search-tool, web-fetch-tool, code-execution-tool):
a ``server_tool_use``, its result block from the canned pages and programs, billed in
``usage.server_tool_use``; and when the plain offline model calls a client tool."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from ctxlab.sim import Simulator, make_client

HAIKU = "claude-haiku-4-5"
SEARCH = {"type": "web_search_20250305", "name": "web_search"}
FETCH = {"type": "web_fetch_20250910", "name": "web_fetch"}
WEATHER = {"name": "get_weather", "description": "Get the weather for a specific location",
           "input_schema": {"type": "object", "properties": {"location": {"type": "string"}}}}


def ask(text: str, tools: list[dict[str, Any]], **extra: Any) -> anthropic.types.Message:
    client = make_client(Simulator())
    return client.messages.create(model=HAIKU, max_tokens=1024, tools=tools,
                                  messages=[{"role": "user", "content": text}], **extra)


def test_web_search_answers_on_the_server_and_is_billed() -> None:
    message = ask("What's the weather in New York?", [SEARCH])
    kinds = [b.type for b in message.content]
    assert kinds == ["server_tool_use", "web_search_tool_result", "text"], kinds
    use, result, text = message.content
    assert (use.name, use.input) == ("web_search", {"query": "What's the weather in New York?"})
    assert result.tool_use_id == use.id and use.id.startswith("srvtoolu_")
    assert result.content[0].url == "https://weather.example.org/new-york"
    assert "41°F" in text.text and message.stop_reason == "end_turn"
    assert message.usage.server_tool_use.web_search_requests == 1
    plain = ask("What's the weather in New York?", [])
    assert message.usage.input_tokens > plain.usage.input_tokens  # results are read as input


def test_web_fetch_reads_a_canned_page_or_reports_it_inaccessible() -> None:
    from ctxlab.sim.server_tools import canned

    page = canned()["pages"][2]
    message = ask(f"Summarise {page['url']} please", [FETCH])
    result = message.content[1]
    assert result.type == "web_fetch_tool_result"
    assert result.content.content.source.data == page["text"]
    assert message.usage.server_tool_use.web_fetch_requests == 1
    missing = ask("Read https://nowhere.example.net/x", [FETCH]).content[1]
    assert missing.content.error_code == "url_not_accessible"


@pytest.mark.parametrize("tool, name, result", [
    ("code_execution_20250522", "code_execution", "code_execution_tool_result"),
    ("code_execution_20250825", "bash_code_execution", "bash_code_execution_tool_result")])
def test_code_execution_answers_with_the_canned_output(tool, name, result) -> None:
    message = ask("Calculate the sum of 1 to 10", [{"type": tool, "name": "code_execution"}])
    use, got, text = message.content
    assert (use.name, got.type, got.content.stdout, got.content.return_code) == (
        name, result, "55\n", 0)
    assert "55" in text.text


def test_a_server_tool_only_when_asked_and_allowed() -> None:
    assert ask("What's new?", [SEARCH]).content[0].type == "server_tool_use"
    assert [b.type for b in ask("Say hello.", [SEARCH]).content] == ["text"]
    refused = ask("What's new?", [SEARCH], tool_choice={"type": "none"})
    assert [b.type for b in refused.content] == ["text"]
    assert refused.usage.server_tool_use is None


def test_the_answer_goes_back_as_history() -> None:
    client = make_client(Simulator())
    first = client.messages.create(model=HAIKU, max_tokens=512, tools=[SEARCH], messages=[
        {"role": "user", "content": "Any news about Anthropic?"}])
    assert first.content[1].type == "web_search_tool_result"
    again = client.messages.create(model=HAIKU, max_tokens=512, tools=[SEARCH], messages=[
        {"role": "user", "content": "Any news about Anthropic?"},
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": "Thanks."}])
    assert again.stop_reason == "end_turn"


def test_the_offline_model_calls_a_tool_the_user_asks_about() -> None:
    called = ask("What is the weather in SF?", [WEATHER])
    assert called.stop_reason == "tool_use"
    assert [b.name for b in called.content if b.type == "tool_use"] == ["get_weather"]
    assert ask("Say hello.", [WEATHER]).stop_reason == "end_turn"
