"""litellm against ``ctxlab serve``: the task, structured output and streaming usage, then the
rate-limit headers it hands on (as ``x-ratelimit-*`` and ``llm_provider-*``) and a Message
Batch, made with the SDK, read through ``litellm.retrieve_batch``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import anthropic
from common import KEY, MODEL, QUESTION, TASK, Verdict, add


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

    def headers() -> str:
        answer = litellm.completion(messages=[{"role": "user", "content": "hello"}], **base)
        seen = answer._hidden_params["additional_headers"]
        limit, left = (int(seen[f"x-ratelimit-{k}-requests"]) for k in ("limit", "remaining"))
        tokens = int(seen["x-ratelimit-limit-tokens"])
        assert limit == 1000 and 0 <= left <= limit and tokens == 2_400_000, seen
        reset = seen["llm_provider-anthropic-ratelimit-input-tokens-reset"]
        assert abs(datetime.fromisoformat(reset).timestamp() - time.time()) < 120, reset
        return f"requests {left}/{limit}, tokens limit {tokens:,} (input + output)"

    def batch() -> str:
        sdk = anthropic.Anthropic(base_url=url, api_key=KEY)
        made = sdk.messages.batches.create(requests=[
            {"custom_id": f"q{i}", "params": {"model": MODEL, "max_tokens": 64,
                                             "messages": [{"role": "user", "content": "hi"}]}}
            for i in range(3)] + [{"custom_id": "bad", "params": {"model": MODEL,
                                                                  "max_tokens": 0,
                                                                  "messages": []}}])
        for _ in range(100):
            seen = litellm.retrieve_batch(batch_id=made.id, custom_llm_provider="anthropic",
                                          api_base=url, api_key=KEY)
            if seen.status == "completed":
                break
            time.sleep(0.2)
        counts = seen.request_counts
        assert seen.status == "completed" and seen.id == made.id, seen
        assert (counts.total, counts.completed, counts.failed) == (4, 3, 1), counts
        return f"{seen.status}: {counts.completed} of {counts.total} completed, 1 failed"

    return {"tool calling": tools, "structured output": structured, "streaming usage": streaming,
            "rate-limit headers": headers, "batch status": batch}
