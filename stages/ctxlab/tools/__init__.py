"""Sandboxed tools over a per-run copy of a fixture workspace (DESIGN §2, `ctxlab.tools`).

``Workspace`` makes the copy, ``ToolBox`` runs ``read_file``, ``write_file``, ``edit_file``,
``run_command`` and ``search_docs`` inside it, ``definitions()`` gives the tool definitions to
send with a request, and ``to_tool_result()`` wraps an output as a ``tool_result`` block.
"""

from ctxlab.tools.definitions import TOOL_DEFINITIONS, definitions
from ctxlab.tools.results import ToolError, ToolOutput, to_tool_result
from ctxlab.tools.sandbox import LIVE_ALLOWED_PROGRAMS
from ctxlab.tools.toolbox import ToolBox
from ctxlab.tools.workspace import Workspace

__all__ = [
    "LIVE_ALLOWED_PROGRAMS",
    "TOOL_DEFINITIONS",
    "ToolBox",
    "ToolError",
    "ToolOutput",
    "Workspace",
    "definitions",
    "to_tool_result",
]
