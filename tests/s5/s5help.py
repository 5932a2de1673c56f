"""Histories the stage-5 tests share: tool rounds whose outputs have a known size."""

from __future__ import annotations

from typing import Any


def command_output(n: int, size: int) -> str:
    """A command's output of about ``size`` tokens, on which the estimate is close to the count
    (a text of one repeated character is not: the count would decide otherwise)."""
    return "".join(f"{n}.{i}: value={i * 7} ok\n" for i in range(size // 9))


def tool_history(rounds: int, size: int) -> list[dict[str, Any]]:
    """The task, then ``rounds`` command calls each answered by an output of ``size`` tokens."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "the task"}]
    for n in range(rounds):
        history.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "run_command",
             "input": {"command": f"make {n}"}}]})
        history.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}",
             "content": command_output(n, size)}]})
    return history
