"""Exercise 3.1 — writing an offloaded result to disk (guide §7.4, §14 stage 3 "details").

Two properties are yours to get right. The file name comes from the ``tool_use`` id, which the
model produced: validate it before it becomes a path (``../../x`` must not escape). And the
write is exclusive and idempotent per id, never stat-then-write: ids are unique, so the first
complete write of an id wins and a later one keeps it. The lab bench's writer
(``ctxlab.loss.write_offloaded``) does the disk work: a private temporary file, fsync'd, then
``os.link``'d to the name — the link fails if the name exists, which makes it the atomic form of
``open(path, "x")`` and means a crash never leaves a half-written file under the name. It never
writes through a symlink or a hard-linked file a model planted, and it records the file's
checksum, so the loss manifest can tell when an offloaded file is later deleted or changed.
"""

from __future__ import annotations

import re
from pathlib import Path

from ctxlab.loss import write_offloaded

OFFLOAD_DIR = Path(".task_outputs") / "tool-results"
SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")


def offload(root: Path, tool_use_id: str, content: str) -> Path:
    """Store ``content`` as ``root/.task_outputs/tool-results/<tool_use_id>.txt``.

    Raise ``ValueError`` for an id that is not letters, digits, ``_`` and ``-``; otherwise
    hand the file's workspace-relative path and the text to ``write_offloaded``, which stores
    it exclusively (an id stored before keeps its first content). Returns the final path.
    """
    ### BEGIN SOLUTION 3.1
    if not SAFE_ID.fullmatch(tool_use_id):
        raise ValueError(f"refusing to use {tool_use_id!r} as a file name")
    return write_offloaded(root, OFFLOAD_DIR / f"{tool_use_id}.txt", content)
    ### END SOLUTION
