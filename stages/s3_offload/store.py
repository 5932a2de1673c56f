# Generated from solutions/s3_offload/store.py — your exercise: edit it.
# `ctxlab workbook reset 3` regenerates it (your version is backed up first).
"""Exercise 3.1 — writing an offloaded result to disk (guide §7.4, §14 stage 3 "details").

Three properties matter. The file name comes from the ``tool_use`` id, which the model
produced: validate it before it becomes a path (``../../x`` must not escape). Writing is an
exclusive create, never stat-then-write (two writers cannot interleave), and idempotent per
id (ids are unique, so the first complete write wins). And a crash cannot leave a half-written
file under the final name: the content goes to a private temporary file, is flushed to disk,
and only then linked to its name — ``os.link`` fails if the name exists, which makes it the
atomic form of ``open(path, "x")``.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

OFFLOAD_DIR = Path(".task_outputs") / "tool-results"
SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")


def offload(root: Path, tool_use_id: str, content: str) -> Path:
    """Store ``content`` as ``root/.task_outputs/tool-results/<tool_use_id>.txt``.

    Raise ``ValueError`` for an id that is not letters, digits, ``_`` and ``-``. Write the text
    (UTF-8) to a temporary file in the same folder (``tempfile.mkstemp``: created exclusively),
    flush and ``os.fsync`` it, ``os.link`` it to the final name (a ``FileExistsError`` means an
    earlier write already stored this id: keep that one), and always remove the temporary
    file. Returns the final path.
    """
    raise NotImplementedError("Exercise 3.1 — offload(): see notebooks/03_offload.ipynb")
