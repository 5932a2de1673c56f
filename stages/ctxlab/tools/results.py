"""What a tool call hands back to the agent loop (DESIGN §2, `ctxlab.tools`).

A tool never raises for a mistake the model made: it returns a ``ToolOutput`` with
``is_error=True`` and a message the model can act on. Inside the package, guards and tools raise
``ToolError``; ``ToolBox.run`` turns it into that output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ToolOutput:
    """The text a tool produced and whether it reports a failure."""

    content: str
    is_error: bool = False


class ToolError(Exception):
    """A refused or failed tool call; ``str(exc)`` is the explanation shown to the model."""


def to_tool_result(tool_use_id: str, output: ToolOutput) -> dict[str, Any]:
    """The Messages API ``tool_result`` block answering ``tool_use_id`` with ``output``."""
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": output.content,
    }
    if output.is_error:
        block["is_error"] = True
    return block
