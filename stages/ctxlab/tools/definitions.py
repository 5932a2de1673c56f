"""The tools as the model sees them: Anthropic tool definitions (DESIGN §2, §4).

Names and input fields are a contract: the simulated agent emits ``tool_use`` blocks with these
names and fields, and ``ToolBox`` validates inputs against these schemas. Every field is a
required string.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any


def _tool(name: str, description: str, **fields: str) -> dict[str, Any]:
    """A definition whose input fields (name → description) are all required strings."""
    return {
        "name": name,
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": {
                field: {"type": "string", "description": text} for field, text in fields.items()
            },
            "required": list(fields),
            "additionalProperties": False,
        },
    }


TOOL_DEFINITIONS: dict[str, dict[str, Any]] = {
    "read_file": _tool(
        "read_file",
        "Return the full text of a file in the workspace. Also reads files that earlier tool "
        "results were saved to, when a result says where it was stored.",
        path="File path relative to the workspace root.",
    ),
    "run_command": _tool(
        "run_command",
        "Run one program with its arguments in the workspace root and return its combined "
        "stdout and stderr followed by the exit code. There is no shell: pipes, ;, &&, "
        "redirection, globbing and $VARIABLES are not available. Long-running commands are "
        "stopped after a timeout and very long output is cut.",
        command="The command line, e.g. 'python3 -m pytest -q tests/test_parser.py'.",
    ),
    "edit_file": _tool(
        "edit_file",
        "Replace one exact occurrence of a piece of text in a file. Fails when the text is "
        "missing or occurs more than once; add surrounding lines to make it unique.",
        path="File path relative to the workspace root.",
        old="The exact text to replace, including whitespace.",
        new="The replacement text.",
    ),
    "write_file": _tool(
        "write_file",
        "Create a file, or overwrite it, with the given content. Missing parent directories "
        "are created.",
        path="File path relative to the workspace root.",
        content="The complete new content of the file.",
    ),
    "search_docs": _tool(
        "search_docs",
        "Search the project documentation for lines containing a phrase (case-insensitive) "
        "and return them as path:line: text.",
        query="The phrase to look for.",
    ),
}


def definitions(names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Copies of the named definitions (all when ``names`` is None), sorted by name.

    Copies, so a caller may add ``cache_control`` to one without changing the shared table.
    """
    chosen = sorted(TOOL_DEFINITIONS if names is None else set(names))
    unknown = [name for name in chosen if name not in TOOL_DEFINITIONS]
    if unknown:
        raise KeyError(f"unknown tool names: {unknown}; known: {sorted(TOOL_DEFINITIONS)}")
    return [copy.deepcopy(TOOL_DEFINITIONS[name]) for name in chosen]
