"""``ToolBox``: executes the model's tool calls in one workspace (DESIGN §2, `ctxlab.tools`).

The agent loop hands it each ``tool_use`` block's name and input and sends the ``ToolOutput``
back as a ``tool_result``. Whatever the model gets wrong (an unknown tool, a missing or
mistyped field, a path outside the workspace, a failing command) comes back as an error output
the model can read; nothing raises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ctxlab.tokens import encodable
from ctxlab.tools.command import run_command
from ctxlab.tools.definitions import TOOL_DEFINITIONS
from ctxlab.tools.files import edit_file, read_file, write_file
from ctxlab.tools.results import ToolError, ToolOutput
from ctxlab.tools.search import search_docs
from ctxlab.tools.workspace import Workspace

DEFAULT_TIMEOUT = 10.0
DEFAULT_OUTPUT_CAP = 100_000

_JSON_TYPES: dict[type, str] = {
    bool: "boolean", int: "integer", float: "number", str: "string",
    list: "array", dict: "object", type(None): "null",
}


class ToolBox:
    """Runs the tools of ``TOOL_DEFINITIONS`` inside ``workspace``.

    ``timeout`` (seconds) and ``output_cap`` (bytes) apply to ``run_command``; so does
    ``allowed``, the programs it may run without asking (``LIVE_ALLOWED_PROGRAMS`` in live
    mode, None for any), and ``confirm(argv)``, asked about any other (refused when None).
    """

    def __init__(
        self,
        workspace: Workspace | Path,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        allowed: frozenset[str] | None = None,
        confirm: Callable[[list[str]], bool] | None = None,
    ) -> None:
        if timeout <= 0 or output_cap <= 0:
            raise ValueError("timeout and output_cap must be positive")
        root = workspace.root if isinstance(workspace, Workspace) else Path(workspace)
        self.root = root.resolve()
        self.timeout = timeout
        self.output_cap = output_cap
        self._tools: dict[str, Callable[[dict[str, str]], str]] = {
            "read_file": lambda a: read_file(self.root, a["path"]),
            "write_file": lambda a: write_file(self.root, a["path"], a["content"]),
            "edit_file": lambda a: edit_file(self.root, a["path"], a["old"], a["new"]),
            "run_command": lambda a: run_command(
                self.root, a["command"], timeout=self.timeout, cap=self.output_cap,
                allowed=allowed, confirm=confirm,
            ),
            "search_docs": lambda a: search_docs(self.root, a["query"]),
        }

    def run(self, name: str, tool_input: Mapping[str, Any]) -> ToolOutput:
        """Execute one tool call; failures come back as ``is_error`` outputs."""
        tool = self._tools.get(name)
        if tool is None:
            return ToolOutput(f"Error: Tool '{name}' not found", is_error=True)
        problem = input_problem(TOOL_DEFINITIONS[name]["input_schema"], tool_input)
        if problem is not None:
            return ToolOutput(f"Error: invalid input for {name}: {problem}", is_error=True)
        try:
            return ToolOutput(tool(dict(tool_input)))
        except ToolError as exc:
            return ToolOutput(f"Error: {exc}", is_error=True)
        except OSError as exc:  # e.g. permission denied, disk full, file name too long
            return ToolOutput(f"Error: {name} failed: {exc.strerror or exc}", is_error=True)


def input_problem(schema: Mapping[str, Any], tool_input: object) -> str | None:
    """What is wrong with ``tool_input`` for an object schema of string fields, or None."""
    if not isinstance(tool_input, Mapping):
        return f"expected a JSON object, got {_json_type(tool_input)}"
    properties: Mapping[str, Any] = schema["properties"]
    for field in schema["required"]:
        if field not in tool_input:
            return f"missing required field '{field}'"
    for field, value in tool_input.items():
        if field not in properties:
            return f"unexpected field '{field}'"
        expected = properties[field]["type"]
        if _json_type(value) != expected:
            return f"field '{field}' must be a {expected}, got {_json_type(value)}"
        if isinstance(value, str) and not encodable(value):
            return f"field '{field}' is not valid Unicode text (lone surrogate)"
    return None



def _json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)
