"""LangChain and pydantic-ai against ``ctxlab serve``: a tool-calling task, a structured-output
request and a streaming usage check each."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from common import KEY, MODEL, QUESTION, TASK, Verdict, add

# LangChain

def langchain_checks(url: str) -> dict[str, Callable[[], str]]:
    from langchain_anthropic import ChatAnthropic
    from langchain_core.messages import HumanMessage, ToolMessage

    llm = ChatAnthropic(model=MODEL, base_url=url, api_key=KEY, max_tokens=1024)

    def tools() -> str:
        bound = llm.bind_tools([add])
        history: list[Any] = [HumanMessage(TASK)]
        first = bound.invoke(history)
        call = first.tool_calls[0]
        assert call["name"] == "add" and call["args"] == {"a": 2, "b": 3}, first.tool_calls
        history += [first, ToolMessage(str(add(**call["args"])), tool_call_id=call["id"])]
        final = bound.invoke(history)
        assert not final.tool_calls and final.text, final
        return f"add{call['args']} then {len(final.text)} chars of text"

    def structured() -> str:
        verdict = llm.with_structured_output(Verdict).invoke(QUESTION)
        assert isinstance(verdict, Verdict), verdict
        return f"Verdict with {len(verdict.points)} point(s)"

    def streaming() -> str:
        whole = llm.invoke("hello")
        chunks = list(llm.stream("hello"))
        total = chunks[0]
        for chunk in chunks[1:]:
            total = total + chunk
        got, want = total.usage_metadata, whole.usage_metadata
        assert got["input_tokens"] == want["input_tokens"] > 0, (got, want)
        assert got["output_tokens"] == want["output_tokens"] > 0, (got, want)
        return f"input {got['input_tokens']}, output {got['output_tokens']} (as unstreamed)"

    return {"tool calling": tools, "structured output": structured, "streaming usage": streaming}


# pydantic-ai

def pydantic_ai_checks(url: str) -> dict[str, Callable[[], str]]:
    from pydantic_ai import Agent
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    model = AnthropicModel(MODEL, provider=AnthropicProvider(api_key=KEY, base_url=url))

    def tools() -> str:
        ran: list[tuple[int, int]] = []
        agent = Agent(model)

        @agent.tool_plain
        def add_numbers(a: int, b: int) -> int:
            """Add two whole numbers."""
            ran.append((a, b))
            return a + b

        result = agent.run_sync("Use add_numbers on 2 and 3, then tell me the sum.")
        assert ran == [(2, 3)] and result.output, (ran, result.output)
        return f"add_numbers{ran[0]} then {len(result.output)} chars of text"

    def structured() -> str:
        verdict = Agent(model, output_type=Verdict).run_sync(QUESTION).output
        assert isinstance(verdict, Verdict), verdict
        return f"Verdict with {len(verdict.points)} point(s)"

    def streaming() -> str:
        agent = Agent(model)
        whole = _usage(agent.run_sync("hello"))

        async def streamed() -> Any:
            async with agent.run_stream("hello") as run:
                async for _ in run.stream_text():
                    pass
                return _usage(run)

        import asyncio
        usage = asyncio.run(streamed())
        assert usage.input_tokens == whole.input_tokens > 0, (usage, whole)
        assert usage.output_tokens == whole.output_tokens > 0, (usage, whole)
        return f"input {usage.input_tokens}, output {usage.output_tokens} (as unstreamed)"

    return {"tool calling": tools, "structured output": structured, "streaming usage": streaming}


def _usage(result: Any) -> Any:
    """A pydantic-ai run's usage (a method in older releases, a property in newer ones)."""
    usage = result.usage
    return usage if hasattr(usage, "input_tokens") else usage()
