"""Offloaded files and their checksums: a file the manifest counts on must still be the one
written (§7.4).

The writer (``ctxlab.loss.offloads.write_offloaded``) appends the SHA-256 of every file it
stores to ``.ctxlab-session/offloaded.jsonl``. ``verify`` compares every recorded file with its
checksum: a missing, changed or linked file is a loss, reported by the manifest and by
``--resume``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..telemetry import read_records
from ..tools import safe_path

CHECKSUMS = Path(".ctxlab-session") / "offloaded.jsonl"


def recorded(root: Path) -> dict[str, str]:
    """Workspace-relative path → SHA-256 of every offloaded file this workspace recorded."""
    return {str(r["path"]): str(r["sha256"]) for r in read_records(root / CHECKSUMS, root=root)
            if isinstance(r.get("path"), str) and isinstance(r.get("sha256"), str)}


def problem(root: Path, relative: str, sha256: str) -> str | None:
    """Why the recorded file ``relative`` is not the one written (``missing``, ``changed``,
    ``not readable``), or None when it is."""
    try:
        data = safe_path.read_bytes(root / relative, root=root)
    except FileNotFoundError:
        return "missing"
    except (OSError, ValueError):
        return "not readable without following a link"
    return None if hashlib.sha256(data).hexdigest() == sha256 else "changed"


def verify(root: Path) -> list[str]:
    """One line per recorded offloaded file that is missing, changed or unreadable."""
    return [f"{relative}: {why}" for relative, sha in recorded(root).items()
            if (why := problem(root, relative, sha)) is not None]
