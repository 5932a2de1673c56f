"""A per-run copy of a fixture workspace, the only directory the tools may touch (DESIGN §2).

Each run works on a fresh copy, so an agent that edits or deletes files never changes the
fixture and two runs never see each other's changes. Symlinks are copied as symlinks, not
followed, so a fixture can hold a link that points out and the sandbox can be seen refusing it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType

SESSION_DIR = ".ctxlab-session"  # the run's own logs: journal, decisions, checksums


class Workspace:
    """A copy of ``source`` in a new temporary directory, or in ``target`` when given.

    ``target`` must be missing or empty (apart from the run's ``.ctxlab-session`` folder, which
    ``ctxlab.journal.begin`` writes first); it is removed by ``cleanup()`` like a temporary one.
    """

    def __init__(
        self,
        source: str | os.PathLike[str],
        target: str | os.PathLike[str] | None = None,
    ) -> None:
        src = Path(source)
        if not src.is_dir():
            raise NotADirectoryError(f"workspace source is not a directory: {src}")
        if target is None:
            dest = Path(tempfile.mkdtemp(prefix=f"ctxlab-{src.name}-"))
        else:
            dest = Path(target)
            if dest.exists() and any(p.name != SESSION_DIR for p in dest.iterdir()):
                raise FileExistsError(f"workspace target is not empty: {dest}")
        shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)
        self.source = src
        self.root = dest.resolve()

    def cleanup(self) -> None:
        """Delete the copy (safe to call twice)."""
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.cleanup()

    def __repr__(self) -> str:
        return f"Workspace(source={str(self.source)!r}, root={str(self.root)!r})"
