"""Hypothesis strategies: valid Messages API histories with every shape a context layer meets.

A generated history is what an agent loop holds just before a request: it starts with the
user's task and ends with a user message. In between, API rounds of every kind the issue
names: parallel tool calls, signed thinking blocks, one response logged as two consecutive
assistant messages ("split" entries), user text and images sent with tool results or on their
own, error results, results with list content, and now and then a huge result. Every history
is valid by construction; ``tests/reliability/test_generator.py`` proves it with the
simulator's own validator, so a property that fails is a bug in what it tests, not here.

User texts are unique (each carries a counter) and short unless marked long, so "is this user
message still in the context, in the summary, on disk?" has an exact answer.

``cases(name)`` is the example budget of one property: the default profile (``make test``)
keeps the whole folder fast; ``CTXLAB_HYPOTHESIS=large`` runs at least 10,000 cases in all.
"""

from __future__ import annotations

import base64
import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from ctxlab.scenarios.images import png
from ctxlab.sim import thinking

Messages = list[dict[str, Any]]

PROFILE = os.environ.get("CTXLAB_HYPOTHESIS", "default")
BUDGETS: dict[str, tuple[int, int]] = {  # property → (default, large) examples
    "generator": (30, 1_000),
    "safe_cut": (60, 3_000),
    "stage3": (25, 1_500),
    "stage4": (20, 1_500),
    "stage5": (20, 1_500),
    "importer": (30, 1_500),
    "replay": (6, 300),
}
"""Cases per property test (the ``generator``, ``stage4`` and ``stage5`` budgets serve two tests
each): 291 in all by default, 15,300 with ``CTXLAB_HYPOTHESIS=large``."""


def cases(name: str) -> settings:
    """The hypothesis settings of one property under the selected profile."""
    default, large = BUDGETS[name]
    if PROFILE == "large":
        return settings(max_examples=large, deadline=None, database=None,
                        suppress_health_check=list(HealthCheck))
    return settings(max_examples=default, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


WORDS = ("parser", "timeout", "config", "report", "retry", "cache", "window", "token", "fix",
         "check", "log", "the", "and", "with", "报告", "超时", "配置", "缓存", "测试", "def",
         "return", "None", "0.5", "42", "{", "}", "->", "#", "λ", "é")
TOOLS = ("read_file", "run_command", "edit_file", "write_file", "search_docs", "mcp__jira")
HUGE = (45_000, 160_000)  # characters: over stage 3's 50K budget, or near a 32K window


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _image(draw: st.DrawFn) -> dict[str, Any]:
    width, height = draw(st.sampled_from([(8, 8), (64, 32), (400, 300), (1600, 900)]))
    data = base64.b64encode(png(width, height, "#3366cc")).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": data}}


class _Counter:
    def __init__(self) -> None:
        self.n = 0

    def next(self) -> int:
        self.n += 1
        return self.n


def _words(draw: st.DrawFn, low: int, high: int) -> str:
    return " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=low, max_size=high)))


def _user_text(draw: st.DrawFn, counter: _Counter) -> str:
    n = counter.next()
    body = _words(draw, 1, 12)
    if draw(st.integers(0, 19)) == 0:  # now and then a long one (a pasted log)
        body += " " + ("pasted line " * draw(st.integers(200, 600)))
    return f"[user message {n}] {body}".strip()


def _result_text(draw: st.DrawFn, tool_id: str) -> str:
    kind = draw(st.sampled_from(["small"] * 6 + ["medium"] * 3 + ["huge"]))
    if kind == "small":
        size = draw(st.integers(5, 400))
    elif kind == "medium":
        size = draw(st.integers(2_000, 20_000))
    else:
        size = draw(st.integers(*HUGE))
    line = f"{tool_id} {_words(draw, 2, 8)} line\n"
    head = f"output of {tool_id}\n"
    return head + (line * (size // len(line) + 1))[:size] + f"\nend of {tool_id}"


def _tool_use(draw: st.DrawFn, tool_id: str) -> dict[str, Any]:
    name = draw(st.sampled_from(TOOLS))
    if name in ("read_file", "edit_file", "write_file"):
        tool_input: dict[str, Any] = {"path": draw(st.sampled_from(
            ["src/app.py", "config.py", "docs/notes.md", "报告/说明.txt", "tests/test_x.py"]))}
        if name == "edit_file":
            tool_input.update(old="a", new="b")
        if name == "write_file":
            tool_input["content"] = _words(draw, 1, 6) or "x"
    elif name == "run_command":
        tool_input = {"command": draw(st.sampled_from(
            ["python3 -m pytest -q", "cat logs/app.log", "ls", "grep -n TODO src/app.py"]))}
    else:
        tool_input = {"query": _words(draw, 1, 3) or "q"}
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}


def _tool_result(draw: st.DrawFn, tool_id: str) -> dict[str, Any]:
    text = _result_text(draw, tool_id)
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id}
    shape = draw(st.sampled_from(["str"] * 5 + ["list", "list+image"]))
    if shape == "str":
        block["content"] = text
    else:
        block["content"] = [_text(text)] + ([_image(draw)] if shape == "list+image" else [])
    if draw(st.integers(0, 9)) == 0:
        block["is_error"] = True
    return block


def _assistant_blocks(draw: st.DrawFn, rnd: int, ids: list[str],
                      with_thinking: bool) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if with_thinking and draw(st.booleans()):
        thoughts = [{"type": "thinking", "thinking": f"round {rnd}: {_words(draw, 3, 12)}"}
                    for _ in range(draw(st.integers(1, 2)))]
        for k, block in enumerate(thoughts):
            block["signature"] = thinking.sign(block, message_id=f"msg_gen_{rnd}", index=k,
                                               count=len(thoughts))
        blocks += thoughts
    if not ids or draw(st.booleans()):
        blocks.append(_text(f"assistant {rnd}: {_words(draw, 1, 10)}".strip()))
    blocks += [_tool_use(draw, tool_id) for tool_id in ids]
    return blocks


def _split(draw: st.DrawFn, role: str, blocks: list[dict[str, Any]]) -> Messages:
    """One message, or (now and then) the same blocks logged as two consecutive messages."""
    if len(blocks) > 1 and draw(st.integers(0, 3)) == 0:
        at = draw(st.integers(1, len(blocks) - 1))
        return [{"role": role, "content": blocks[:at]}, {"role": role, "content": blocks[at:]}]
    return [{"role": role, "content": blocks}]


@st.composite
def histories(draw: st.DrawFn, *, min_rounds: int = 0, max_rounds: int = 14,
              with_thinking: bool = True, with_images: bool = True) -> Messages:
    """A valid history ending with a user message (see the module docstring)."""
    users, calls = _Counter(), _Counter()
    first: list[dict[str, Any]] = [_text(_user_text(draw, users))]
    if draw(st.booleans()):
        first.append(_text(f"Rule: do not modify config.py. {_user_text(draw, users)}"))
    if with_images and draw(st.integers(0, 4)) == 0:
        first.append(_image(draw))
    if draw(st.integers(0, 4)) == 0:
        messages: Messages = [{"role": "user", "content": first[0]["text"]}]  # plain string
        if len(first) > 1:
            messages.append({"role": "user", "content": first[1:]})  # a split first round
    else:
        messages = [{"role": "user", "content": first}]
    for rnd in range(1, draw(st.integers(min_rounds, max_rounds)) + 1):
        parallel = draw(st.sampled_from([0, 1, 1, 1, 1, 2, 3, 5]))
        ids = [f"toolu_{rnd:03d}_{calls.next():04d}" for _ in range(parallel)]
        messages += _split(draw, "assistant", _assistant_blocks(draw, rnd, ids, with_thinking))
        answer: list[dict[str, Any]] = [_tool_result(draw, tool_id) for tool_id in ids]
        if len(answer) > 1 and draw(st.booleans()):  # results may come in any order
            answer = draw(st.permutations(answer))
        extra: list[dict[str, Any]] = []
        if not ids or draw(st.integers(0, 4)) == 0:
            extra.append(_text(_user_text(draw, users)))
            if with_images and draw(st.integers(0, 5)) == 0:
                extra.append(_image(draw))
        if answer and extra and draw(st.integers(0, 3)) == 0:  # the user's words on their own
            messages += [{"role": "user", "content": answer}, {"role": "user", "content": extra}]
        else:
            messages.append({"role": "user", "content": answer + extra})
    return messages


# ---- what a history holds -------------------------------------------------------------------

def blocks_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [_text(content)] if isinstance(content, str) else content


def user_texts(messages: Messages) -> list[str]:
    """The texts the user wrote (not tool results), oldest first."""
    return [b["text"] for m in messages if m["role"] == "user" for b in blocks_of(m)
            if b.get("type") == "text"]


def tool_ids(messages: Messages) -> list[str]:
    return [b["id"] for m in messages if m["role"] == "assistant" for b in blocks_of(m)
            if b.get("type") == "tool_use"]


def rounds(messages: Messages) -> list[Messages]:
    """The history as the loop built it: the first round, then one list per API round."""
    starts = [0] + [i for i in range(1, len(messages))
                    if messages[i]["role"] == "assistant" and messages[i - 1]["role"] == "user"]
    ends = starts[1:] + [len(messages)]
    return [messages[s:e] for s, e in zip(starts, ends, strict=True)]
