"""Finding session logs: the files and folders a user names, searched recursively.

Claude Code keeps a session as ``~/.claude/projects/<project>/<session>.jsonl`` and the logs of
its subagents as ``<project>/<session>/subagents/agent-*.jsonl`` (real-transcripts §1), so a
folder is walked all the way down. Links to folders are not followed (a tree cannot loop or
lead elsewhere); a named file is taken as it is. ``replay`` and ``calibrate`` both use this.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

SUFFIX = ".jsonl"


class DiscoveryError(ValueError):
    """A path the user named that yields no log; the message is one line."""


def _walk(folder: Path) -> list[Path]:
    """Every ``*.jsonl`` under ``folder``, in a stable order (sorted by relative path)."""
    found = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs.sort()
        found.extend(Path(root) / name for name in files if name.endswith(SUFFIX))
    return sorted(found, key=lambda path: path.relative_to(folder).parts)


def find_logs(paths: Iterable[Path]) -> list[Path]:
    """The session logs named by ``paths``: a file as it is, a folder searched recursively
    (sessions and their ``subagents/``). Each file once, in the order named."""
    logs: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise DiscoveryError(f"{path} does not exist")
        if path.is_dir():
            found = _walk(path)
            if not found:
                raise DiscoveryError(f"{path} holds no *{SUFFIX} session logs "
                                     "(searched all its folders)")
        else:
            found = [path]
        for log in found:
            key = log.absolute()
            if key not in seen:
                seen.add(key)
                logs.append(log)
    return logs


def display_name(log: Path, roots: Iterable[Path]) -> str:
    """``log``'s name relative to the folder it was found in (``proj/sess/subagents/a.jsonl``),
    or its own name when it was named directly."""
    for root in roots:
        if root.is_dir():
            try:
                return log.relative_to(root).as_posix()
            except ValueError:
                continue
    return log.name
