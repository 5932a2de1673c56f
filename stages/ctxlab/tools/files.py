"""The file tools: ``read_file``, ``write_file`` and ``edit_file`` (DESIGN §2).

``read_file`` returns a whole file, however long: keeping big results out of the context is the
job of the stages (offload, §3.2), and ``read_file`` is the channel through which the model gets
an offloaded result back. So offloaded files must be stored inside the workspace, where this
tool can reach them ("external storage must be reachable by the model with its own tools").
Only files above ``MAX_READ_BYTES`` are refused. Every path goes through ``resolve_inside``;
writes also go through ``safe_path``, so they never follow a link, even one that stays inside.
"""

from __future__ import annotations

import os
from pathlib import Path

from ctxlab.tools import safe_path
from ctxlab.tools.results import ToolError
from ctxlab.tools.sandbox import resolve_inside

MAX_READ_BYTES = 20_000_000


def read_file(root: Path, path: str) -> str:
    """The text of ``path``; binary files are described, invalid UTF-8 is replaced."""
    target = _existing_file(root, path)
    size = target.stat().st_size
    if size > MAX_READ_BYTES:
        raise ToolError(
            f"{path} is {size} bytes, over the {MAX_READ_BYTES}-byte limit of read_file; "
            "use run_command (e.g. head, grep) to look at parts of it"
        )
    data = target.read_bytes()
    if b"\x00" in data:
        return f"[binary file: {path}, {len(data)} bytes; not shown]"
    return data.decode("utf-8", errors="replace")


def write_file(root: Path, path: str, content: str) -> str:
    """Create or overwrite ``path`` with ``content`` (UTF-8), creating parent directories."""
    target = resolve_inside(root, path)
    if target.is_dir():
        raise ToolError(f"{path} is a directory")
    data = content.encode("utf-8")
    safe_path.write_bytes(os.path.normpath(path), data, root=root)
    return f"wrote {len(data)} bytes to {path}"


def edit_file(root: Path, path: str, old: str, new: str) -> str:
    """Replace the single occurrence of ``old`` in ``path`` with ``new``."""
    if not old:
        raise ToolError("'old' is empty; give the exact text to replace")
    target = _existing_file(root, path)
    try:
        text = target.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{path} is not UTF-8 text; edit_file only edits text files") from None
    count = text.count(old)
    if count == 0:
        raise ToolError(f"'old' was not found in {path}; read the file and copy the text exactly")
    if count > 1:
        raise ToolError(
            f"'old' occurs {count} times in {path}; include more surrounding text so that "
            "it matches exactly once"
        )
    safe_path.write_bytes(os.path.normpath(path), text.replace(old, new, 1).encode(), root=root)
    return f"edited {path}: replaced 1 occurrence"


def _existing_file(root: Path, path: str) -> Path:
    target = resolve_inside(root, path)
    if target.is_dir():
        raise ToolError(f"{path} is a directory; use run_command with ls to list it")
    if not target.is_file():
        raise ToolError(f"file not found: {path}")
    return target
