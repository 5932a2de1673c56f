"""Synthetic Claude Code session logs of any length, for the replay's tests and benchmark.

A log in the shape of real-transcripts §4: one line per content block of a response (thinking,
text, tool calls; some responses call two tools at once), one line per tool result, a new user
prompt now and then, and on every assistant line the usage the API would have reported: the
reference count of the history so far plus a fixed ``overhead`` for the system prompt and tool
definitions that a log never holds. Seeded, so the same arguments give the same bytes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from ctxlab import models

from .measure import Sizer

WORDS = ("build", "test", "module", "config", "parser", "error", "value", "request", "cache",
         "token", "result", "window", "layer", "session", "file", "line", "return", "index")
OVERHEAD = 20_000  # tokens of system prompt and tool definitions (real logs show 15–25K)


def _text(rng: random.Random, words: int) -> str:
    lines, line = [], []
    for n in range(words):
        line.append(rng.choice(WORDS) if rng.random() < 0.8 else str(rng.randrange(1000)))
        if len(line) >= 12 or n == words - 1:
            lines.append(" ".join(line))
            line = []
    return "\n".join(lines)


class _Log:
    """Lines of one log, each with a uuid chained to the one before."""

    def __init__(self, model: str, session: str) -> None:
        self.lines: list[str] = []
        self.model = model
        self.session = session
        self.n = 0

    def add(self, kind: str, message: dict[str, Any], **extra: Any) -> None:
        self.n += 1
        entry = {"parentUuid": f"u{self.n - 1}" if self.n > 1 else None,
                 "isSidechain": False, "userType": "external", "sessionId": self.session,
                 "version": "2.1.39", "type": kind, "uuid": f"u{self.n}",
                 "timestamp": f"2026-03-02T10:{self.n // 60 % 60:02d}:{self.n % 60:02d}.000Z",
                 "message": message, **extra}
        self.lines.append(json.dumps(entry, ensure_ascii=False))


def synthetic_log(path: str | Path, requests: int, *, seed: int = 0, result_words: int = 600,
                  model: str = models.DEFAULT_MODEL, overhead: int = OVERHEAD) -> Path:
    """Write a log of ``requests`` requests to ``path``; tool results of about
    ``result_words`` words (some ten times longer, to be offloaded)."""
    rng = random.Random(seed)
    log, sizer = _Log(model, f"synthetic-{requests}-{seed}"), Sizer()  # one session each
    history: list[dict[str, Any]] = []

    def user(content: list[dict[str, Any]]) -> None:
        history.append({"role": "user", "content": content})
        for block in content:
            log.add("user", {"role": "user", "content": [block]})

    user([{"type": "text", "text": "Fix the failing build. " + _text(rng, 40)}])
    for number in range(1, requests + 1):
        size = sizer.count(history) + overhead
        calls = 2 if rng.random() < 0.2 else 1
        blocks: list[dict[str, Any]] = [
            {"type": "thinking", "thinking": _text(rng, 60), "signature": f"sig{number}"},
            {"type": "text", "text": _text(rng, 30)}]
        blocks += [{"type": "tool_use", "id": f"toolu_{number}_{k}", "name": "Read",
                    "input": {"file_path": f"src/module_{rng.randrange(50)}.py"}}
                   for k in range(calls)]
        usage = {"input_tokens": 3, "cache_read_input_tokens": size - 3,
                 "cache_creation_input_tokens": 0, "output_tokens": 40 * len(blocks)}
        for block in blocks:
            log.add("assistant", {"model": model, "id": f"msg_{number}", "type": "message",
                                  "role": "assistant", "content": [block],
                                  "stop_reason": None, "usage": usage},
                    requestId=f"req_{number}")
        history.append({"role": "assistant", "content": blocks})
        results: list[dict[str, Any]] = [
            {"type": "tool_result", "tool_use_id": b["id"],
             "content": _text(rng, result_words * (20 if rng.random() < 0.05 else 1))}
            for b in blocks if b["type"] == "tool_use"]
        if number < requests and rng.random() < 0.05:
            results.append({"type": "text", "text": "Also keep the old API working. "
                            + _text(rng, 20)})
        user(results)
    Path(path).write_text("\n".join(log.lines) + "\n", encoding="utf-8")
    return Path(path)
