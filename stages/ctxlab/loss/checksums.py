"""Offloaded files and their checksums: a file the manifest counts on must still be the one
written (§7.4).

``write_offloaded`` is the bench's writer for stage 3's offload store: the bytes go to disk
through ``ctxlab.tools.safe_path.create_once`` (crash-safe, exclusive, the first complete write
of a name wins, never through a link), and the SHA-256 of what this call stored is appended to
``.ctxlab-session/offloaded.jsonl``. ``verify`` compares every recorded file with its checksum:
a missing, changed or linked file is a loss, reported by the manifest and by ``--resume``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..telemetry import append_jsonl, read_records
from ..tools import safe_path

CHECKSUMS = Path(".ctxlab-session") / "offloaded.jsonl"


def write_offloaded(root: Path, relative: Path, text: str) -> Path:
    """Store ``text`` (UTF-8) as ``root/relative`` once, recording its checksum; the path."""
    data = text.encode("utf-8")
    if safe_path.create_once(root / relative, data, root=root):
        append_jsonl(root / CHECKSUMS, [{"path": relative.as_posix(), "bytes": len(data),
                                         "sha256": hashlib.sha256(data).hexdigest()}],
                     ensure_ascii=True, root=root)
    return root / relative


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
