"""Histories the stage-5 tests share: tool rounds whose outputs have a known size."""

from __future__ import annotations

import random
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


def read_rounds(rounds: int, copies: int = 20) -> list[dict[str, Any]]:
    """The task, then ``rounds`` ``read_file`` calls, each answered by ``copies`` copies of a
    small source file that names its owner (the band's reads have something to find)."""
    return [{"role": "user", "content": "find the owner of each part"}] + [
        m for n in range(rounds) for m in (
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_{n}", "name": "read_file",
                 "input": {"path": f"src/part_{n % 4}.py"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n}",
                 "content": f"# owner: team-{n}\ndef part_{n}():\n    return {n}\n" * copies}]})]


EDITS = 5  # the kinds of ``seeded_edit``


def seeded_edit(history: list[dict[str, Any]], kind: int, rng: random.Random, step: int,
                copies: int = 20) -> list[dict[str, Any]]:
    """``history`` after one edit as a session makes them, by ``kind``: 0, one round more
    (``read_rounds``' with ``copies``); 1, a batch clearing up to three old results; 2, a
    message replaced by one with one result more or one fewer; 3, a round dropped; 4, the
    history cut short. An edit that does not fit the history leaves it as it is."""
    if kind == 0:
        return history + read_rounds(len(history) // 2 + 1, copies)[len(history):]
    if kind == 1 and len(history) > 3:
        history = list(history)
        for i in rng.sample(range(2, len(history), 2), k=min(3, (len(history) - 1) // 2)):
            block = history[i]["content"][0]
            history[i] = dict(history[i], content=[dict(block, content=f"[cleared] team {step}")])
    elif kind == 2 and len(history) > 3:
        history = list(history)
        i = rng.randrange(2, len(history), 2)
        blocks = history[i]["content"]
        history[i] = dict(history[i], content=blocks[:1] if len(blocks) > 1 else blocks * 2)
    elif kind == 3 and len(history) > 5:
        history = history[:1] + history[3:]
    elif kind == 4:
        history = history[:rng.randrange(1, len(history) + 1)]
    return history
