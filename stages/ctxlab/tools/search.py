"""The ``search_docs`` tool: a case-insensitive line search over the workspace's ``docs/``.

It plays an MCP-like tool that the stages do not know by name, so it exercises microcompact's
"unknown tool" tier (DESIGN §2, §4). Files whose real path leaves the workspace, files with a
second hard link (their bytes may be a file anywhere) and binary files are skipped; at most
``MAX_MATCHES`` lines are listed.
"""

from __future__ import annotations

import os
from pathlib import Path

from ctxlab.tools.results import ToolError
from ctxlab.tools.sandbox import is_inside

DOCS_DIR = "docs"
MAX_MATCHES = 50
MAX_LINE_CHARS = 200


def search_docs(root: Path, query: str) -> str:
    """``path:line: text`` for each docs line containing ``query``, or ``no matches``."""
    if not query.strip():
        raise ToolError("the query is empty")
    needle = query.casefold()
    matches: list[str] = []
    for file in _doc_files(root):
        data = file.read_bytes()
        if b"\x00" in data:
            continue
        name = file.relative_to(root).as_posix()
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if needle in line.casefold():
                matches.append(f"{name}:{number}: {line.strip()[:MAX_LINE_CHARS]}")
    if not matches:
        return f"no matches for {query!r} in {DOCS_DIR}/"
    shown = matches[:MAX_MATCHES]
    if len(matches) > MAX_MATCHES:
        shown.append(f"[{len(matches) - MAX_MATCHES} more matches not shown]")
    return "\n".join(shown)


def _doc_files(root: Path) -> list[Path]:
    """Regular files under ``root/docs`` that stay inside the workspace, in a stable order."""
    docs = root / DOCS_DIR
    if not docs.is_dir() or not is_inside(root, docs):
        return []
    files: list[Path] = []
    for folder, dirs, names in os.walk(docs):
        dirs.sort()
        for name in sorted(names):
            path = Path(folder) / name
            if path.is_file() and is_inside(root, path) and path.stat().st_nlink == 1:
                files.append(path)
    return files
