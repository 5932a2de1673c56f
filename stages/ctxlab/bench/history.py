"""Synthetic histories of a chosen size, built deterministically (issue 9).

A history is what an agent loop accumulates: the task, then one API round after another — the
assistant says what it does next and calls ``read_file``, the user message carries the result,
a file of about ``ROUND_TOKENS`` tokens. The text is code-like and seeded, every round's text
is new (so nothing is served from a cache by accident), and sizes are counted exactly as the
simulator bills them: reference tokens of every block plus the per-message framing, on top of
what the tools and system prompt cost.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ..sim.render import MESSAGE_FRAMING, block_tokens

Message = dict[str, Any]
ROUND_TOKENS = 2_000  # one tool result: a mid-sized source file (about 8,000 characters)
CHARS_PER_TOKEN = 3.7  # of the generated text under cl100k_base, to aim each round's size
TASK = ("Find out why the nightly import job drops rows with a trailing delimiter, fix the "
        "parser, and run the tests before you finish.")
WORDS = ("parse", "row", "field", "delimiter", "buffer", "token", "record", "stream", "offset",
         "header", "value", "config", "reader", "writer", "schema", "index", "batch", "error",
         "quote", "escape", "column", "line", "chunk", "limit", "state", "cursor", "encode",
         "decode", "flush", "retry", "cache", "table", "merge", "split", "strip", "check")
TEMPLATES = (
    "def {a}_{b}({c}, {d}={n}):",
    "    {a} = {b}.{c}({d}, {n})",
    "    if {a} is None or len({b}) > {n}:",
    "        raise ValueError(\"{a} {b}: {c} at {n}\")",
    "    for {a} in {b}_{c}[{n}:]:",
    "    return {a}_{b} + {n}  # {c} the {d}",
    "# {a} {b} {c} {d} ({n})",
    "class {A}{B}({C}):",
)


def message_tokens(message: Message) -> int:
    """Tokens of one message as the simulator bills it: its blocks plus the framing."""
    return MESSAGE_FRAMING + sum(block_tokens(b) for b in message["content"])


def source_text(rng: random.Random, tokens: int) -> str:
    """About ``tokens`` tokens of seeded, code-like text."""
    lines: list[str] = []
    size = 0
    while size < tokens * CHARS_PER_TOKEN:
        a, b, c, d = (rng.choice(WORDS) for _ in range(4))
        line = rng.choice(TEMPLATES).format(a=a, b=b, c=c, d=d, n=rng.randrange(10_000),
                                            A=a.title(), B=b.title(), C=c.title())
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


@dataclass
class Rounds:
    """An endless, seeded supply of API rounds: (assistant message, tool_result blocks).

    ``key`` seeds the text: histories built with different keys share no text, so no cache
    carries work over from one measured size to the next.
    """

    key: str = "0"
    tokens: int = ROUND_TOKENS
    issued: int = 0
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.key)

    def next(self) -> tuple[Message, list[dict[str, Any]], dict[str, str]]:
        """The next round and its tool names (``tool_use`` id → name, as ``Session`` keeps)."""
        self.issued += 1
        k = self.issued
        tool_id = f"toolu_bench_{self.key}_{k:07d}"
        path = f"src/module_{k:05d}.py"
        assistant = {"role": "assistant", "content": [
            {"type": "text", "text": f"Reading {path} to follow the delimiter handling."},
            {"type": "tool_use", "id": tool_id, "name": "read_file", "input": {"path": path}}]}
        result = {"type": "tool_result", "tool_use_id": tool_id,
                  "content": source_text(self.rng, self.tokens)}
        return assistant, [result], {tool_id: "read_file"}


@dataclass
class History:
    """A history of about ``target`` tokens and the rounds that continue it."""

    target: int
    messages: list[Message]
    tokens: int  # the whole request as billed: tools, system and every message
    tool_names: dict[str, str]
    rounds: Rounds


def build(target: int, *, overhead: int, seed: int = 0,
          round_tokens: int = ROUND_TOKENS) -> History:
    """A history whose request costs at most ``target`` tokens *with one more round added*.

    ``overhead`` is what the tools and the system prompt cost (the simulator's count for a
    request without messages). The room for one more round is left free so that every
    measured turn — this history plus a fresh round — stays at or below ``target``, which
    keeps a 1M-token request inside a 1M window.
    """
    rounds = Rounds(f"{seed}-{target}", round_tokens)
    messages: list[Message] = [{"role": "user", "content": [{"type": "text", "text": TASK}]}]
    tokens = overhead + message_tokens(messages[0])
    names: dict[str, str] = {}
    headroom = round_tokens * 6 // 5  # one more round, with margin for its variation
    while True:
        assistant, results, new_names = rounds.next()
        user = {"role": "user", "content": results}
        grown = tokens + message_tokens(assistant) + message_tokens(user)
        if grown + headroom > target:
            break
        messages += [assistant, user]
        names.update(new_names)
        tokens = grown
    rounds.issued -= 1  # the round that did not fit was never used: its id is issued again
    return History(target, messages, tokens, names, rounds)
