"""Disposable workspaces: their writes stay atomic but are not forced to disk (§12.6).

Every crash-safe write of the bench (``safe_path.create_once``, ``safe_path.write_bytes``
with ``durable``, ``telemetry.append_jsonl``, ``telemetry.JsonlWriter``, the held folders of
``tools.folder`` and ``telemetry.LogFolder``) fsyncs, so that a workspace a user resumes
after a crash holds every line it was told it holds. A workspace that is deleted when its
run ends — a replay's, the bench's — has nothing to resume: there
the fsync only costs time (642 of them in a stage-5 replay of the shared sessions, about 40 %
of its wall time on a busy disk). The caller that owns such a folder says so for as long as
it uses it::

    with disposable(folder):
        ...  # writes under folder: temporary file + link, append-only, never through a
             # link — all as before, only without the fsync

Nothing else changes: the same checks refuse a link or a hard-linked file, the same temporary
file is linked under its name. The setting belongs to the folder, not to the code that
writes, so a layer written by a learner needs no flag, and a write anywhere else (the user's
workspace, ``ctxlab run --workspace``) is forced to disk as before, even in the same process.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_roots: Counter[str] = Counter()  # absolute folder → how many open ``disposable`` blocks
_lock = threading.Lock()


def _absolute(path: str | os.PathLike[str]) -> str:
    """``path`` made absolute and normalised, without following any link."""
    return os.path.abspath(os.fspath(path))


@contextmanager
def disposable(root: str | os.PathLike[str]) -> Iterator[Path]:
    """Within the block, writes under ``root`` skip the fsync; ``root`` must be a folder the
    caller created and deletes afterwards. Blocks nest; yields ``root`` as a ``Path``."""
    key = _absolute(root)
    with _lock:
        _roots[key] += 1
    try:
        yield Path(root)
    finally:
        with _lock:
            _roots[key] -= 1
            if not _roots[key]:
                del _roots[key]


def must_sync(path: str | os.PathLike[str]) -> bool:
    """Whether a write to ``path`` must reach the disk before it returns: True unless the
    path lies under a folder declared ``disposable``."""
    if not _roots:
        return True
    target = _absolute(path)
    with _lock:
        roots = list(_roots)
    return not any(target == root or target.startswith(root.rstrip(os.sep) + os.sep)
                   for root in roots)
