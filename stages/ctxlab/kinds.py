"""What a tool call *does*, whichever agent made it: read, write, run or search (DESIGN §4, §6).

The bench's tools (``read_file``, ``edit_file``, …) and Claude Code's (``Read``, ``Edit``,
``Bash``, …) name the same four actions differently, and put the file in different fields
(``path`` here, ``file_path`` or ``notebook_path`` there). This is the one table that maps
both, so ``calibrate`` measures a simulated run and a real session with the same rules.
A tool in neither table (``TodoWrite``, an MCP tool) has no kind and is left out of the
per-kind statistics.
"""

from __future__ import annotations

from typing import Any

READ, WRITE, RUN, SEARCH = "read", "write", "run", "search"

KINDS: dict[str, str] = {
    # the bench's tools (ctxlab.tools)
    "read_file": READ, "edit_file": WRITE, "write_file": WRITE, "run_command": RUN,
    "search_docs": SEARCH,
    # Claude Code's built-in tools (real-transcripts §4.3)
    "Read": READ, "NotebookRead": READ, "Edit": WRITE, "MultiEdit": WRITE, "Write": WRITE,
    "NotebookEdit": WRITE, "Bash": RUN, "BashOutput": RUN, "Grep": SEARCH, "Glob": SEARCH,
    "LS": SEARCH, "WebSearch": SEARCH, "WebFetch": SEARCH,
}
"""Tool name → kind, for the bench's tools and Claude Code's."""

PATH_FIELDS = ("file_path", "path", "notebook_path")
"""Input fields that name a file, in the order they are looked for."""


def kind_of(name: str) -> str | None:
    """The kind of tool ``name`` (``read``, ``write``, ``run``, ``search``), or None."""
    return KINDS.get(name)


def file_of(name: str, tool_input: Any) -> str | None:
    """The file a read or write call is about, or None (other kinds, or no path given)."""
    if kind_of(name) not in (READ, WRITE) or not isinstance(tool_input, dict):
        return None
    return next((tool_input[k] for k in PATH_FIELDS if isinstance(tool_input.get(k), str)),
                None)
