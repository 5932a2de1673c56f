"""``make clients``: three third-party Anthropic clients against ``ctxlab serve``, offline.

LangChain (langchain-anthropic), litellm and pydantic-ai each run a short tool-calling task,
a structured-output request and a streaming usage check against the simulator on a local port.
It runs in its own environment (``.venv-clients``, from ``tests/clients/requirements.txt``), so
the project's dependencies stay as they are; litellm reads its bundled price map instead of
fetching one. Usage: ``python check_clients.py PATH/TO/ctxlab`` (the Makefile passes the
project's). Exit status 1 when any check fails; each line says what was seen.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-map download
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")  # nor a header table
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")  # nor anything else it would fetch
os.environ.setdefault("LITELLM_TELEMETRY", "False")

import contextlib  # noqa: E402
import json  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from typing import Any  # noqa: E402

import pydantic  # noqa: E402

MODEL = "claude-haiku-4-5"
KEY = "sk-ant-offline"
TASK = "Use add on 2 and 3, then tell me the sum."
QUESTION = "Judge the release: it works, mostly. Give 2 points."


class Verdict(pydantic.BaseModel):
    """The structured answer every client asks for."""

    summary: str
    confidence: float
    points: list[str]


def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@contextlib.contextmanager
def serve(ctxlab: str) -> Iterator[str]:
    """``ctxlab serve`` on a free local port; yields its base URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([ctxlab, "serve", "--port", str(port), "--quiet"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"ctxlab serve did not start: {server.stderr.read().decode()}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(10)


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


# litellm

def litellm_checks(url: str) -> dict[str, Callable[[], str]]:
    import litellm

    base = {"model": f"anthropic/{MODEL}", "api_base": url, "api_key": KEY, "max_tokens": 1024}
    spec = {"type": "function", "function": {
        "name": "add", "description": "Add two whole numbers.",
        "parameters": {"type": "object", "required": ["a", "b"],
                       "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}}}

    def tools() -> str:
        messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
        first = litellm.completion(messages=messages, tools=[spec], **base)
        call = first.choices[0].message.tool_calls[0]
        args = json.loads(call.function.arguments)
        assert call.function.name == "add" and args == {"a": 2, "b": 3}, call
        messages += [first.choices[0].message.model_dump(),
                     {"role": "tool", "tool_call_id": call.id, "content": str(add(**args))}]
        final = litellm.completion(messages=messages, tools=[spec], **base)
        assert final.choices[0].message.content and not final.choices[0].message.tool_calls
        return f"add{args} then finish_reason {final.choices[0].finish_reason}"

    def structured() -> str:
        answer = litellm.completion(messages=[{"role": "user", "content": QUESTION}],
                                    response_format=Verdict, **base)
        verdict = Verdict.model_validate_json(answer.choices[0].message.content)
        return f"Verdict with {len(verdict.points)} point(s)"

    def streaming() -> str:
        messages = [{"role": "user", "content": "hello"}]
        whole = litellm.completion(messages=messages, **base).usage
        chunks = list(litellm.completion(messages=messages, stream=True,
                                         stream_options={"include_usage": True}, **base))
        usage = next(c.usage for c in reversed(chunks) if getattr(c, "usage", None))
        assert usage.prompt_tokens == whole.prompt_tokens > 0, (usage, whole)
        assert usage.completion_tokens == whole.completion_tokens > 0, (usage, whole)
        return f"prompt {usage.prompt_tokens}, completion {usage.completion_tokens}"

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


CLIENTS = {"langchain-anthropic": langchain_checks, "litellm": litellm_checks,
           "pydantic-ai": pydantic_ai_checks}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    failed = total = 0
    with serve(argv[1]) as url:
        print(f"ctxlab serve at {url}")
        for client, make in CLIENTS.items():
            for feature, check in make(url).items():
                total += 1
                try:
                    detail, mark = check(), "ok  "
                except Exception as error:  # a check's failure is reported, not raised
                    detail, mark = f"{type(error).__name__}: {error}", "FAIL"
                    failed += 1
                print(f"{mark} {client:20} {feature:18} {detail}"[:300])
    print(f"{total - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
