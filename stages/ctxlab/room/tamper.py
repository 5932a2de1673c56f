"""What a participant changed that grading ignores: the tests, the lab bench, the project file.

``ctxlab room`` grades every submission with the instructor's own ``tests/``, reference and
lab bench, so an edited test cannot make an exercise pass. The edit is still worth knowing
about: every file there that differs from the instructor's (changed, added or missing) is
reported, by content, never by date (files missing from a partial checkout only under ``tests/``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

WATCHED = ("tests", "stages/ctxlab", "pyproject.toml", "solutions/grading.toml")
SKIPPED = {"__pycache__", ".pytest_cache", ".ipynb_checkpoints"}


def _digests(root: Path) -> dict[str, str]:
    found = {}
    for entry in WATCHED:
        path = root / entry
        files = [path] if path.is_file() else (sorted(path.rglob("*")) if path.is_dir() else [])
        for file in files:
            if file.is_file() and not file.is_symlink() and not SKIPPED & set(file.parts):
                rel = file.relative_to(root).as_posix()
                found[rel] = hashlib.sha256(file.read_bytes()).hexdigest()
    return found


def edits(checkout: Path, instructor: Path) -> list[str]:
    """The ignored edits of ``checkout``, one line each (``changed tests/s2/test_valid.py``)."""
    theirs, ours = _digests(checkout), _digests(instructor)
    lines = [f"changed {rel}" for rel in sorted(theirs.keys() & ours.keys())
             if theirs[rel] != ours[rel]]
    lines += [f"added {rel}" for rel in sorted(theirs.keys() - ours.keys())]
    lines += [f"missing {rel}" for rel in sorted(ours.keys() - theirs.keys())
              if rel.startswith("tests/")]  # a partial checkout may lack the rest
    return lines
