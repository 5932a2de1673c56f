"""The user's side of a scenario: the opening message and the follow-ups (DESIGN §5).

The opening message holds the task, the constraints given at turn 1 (each as its own text
block, so a summary can keep or drop them independently of the task) and any images. Later
messages wait for a step: ``FollowUps`` releases them once the agent has run that step, and the
loop appends their blocks after the tool results of that round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .images import image_block
from .schema import Call, Scenario


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def opening(scenario: Scenario) -> dict[str, Any]:
    """The first user message: task, turn-1 constraints, images."""
    content = [_text(scenario.task)]
    content += [_text(c.text) for c in scenario.constraints if c.after is None]
    content += [image_block(image) for image in scenario.images]
    return {"role": "user", "content": content}


class FollowUps:
    """Later user messages of one run, each released once, after the step it waits for.

    This is the driver's state, not the model's: the agent loop creates one per run.
    """

    def __init__(self, scenario: Scenario) -> None:
        self._steps = scenario.steps
        self._waiting: list[tuple[str, list[dict[str, Any]]]] = [
            (m.after, [_text(m.text)] + [image_block(i) for i in m.images])
            for m in scenario.messages if m.after is not None]
        self._waiting += [(c.after, [_text(c.text)]) for c in scenario.constraints
                          if c.after is not None]
        self._ran: set[str] = set()

    def after(self, calls: Iterable[tuple[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
        """Blocks of the messages that became due now that ``calls`` (name, input) have run."""
        for name, tool_input in calls:
            call = Call(name, dict(tool_input))
            self._ran.update(step.id for step in self._steps if call in step.calls)
        due = [blocks for after, blocks in self._waiting if after in self._ran]
        self._waiting = [item for item in self._waiting if item[0] not in self._ran]
        return [block for blocks in due for block in blocks]
