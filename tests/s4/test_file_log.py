"""The file log before each request (§10.2): the workspace root is resolved once a session,
not on every request, and a path that leads out through a link is still never recorded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from s4_summarize import FileLog
from s4help import make_history


def test_the_root_is_resolved_once_and_a_link_out_is_still_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    real = tmp_path / "real"
    real.mkdir()
    root = tmp_path / "ws"  # the workspace as the session names it: a link to its folder
    root.symlink_to(real)
    paths = [f"f{n}.py" for n in range(4)] + ["out.txt"]
    for name in paths[:4]:
        (real / name).write_text(name)
    (real / "out.txt").symlink_to(outside)
    resolved: list[Path] = []
    original = Path.resolve
    monkeypatch.setattr(Path, "resolve", lambda self, *a: (
        resolved.append(self), original(self, *a))[1])
    log = FileLog()
    history = make_history(len(paths), paths=paths)
    for upto in range(3, len(history) + 1, 2):  # one request per round, as before each one
        log.record(history[:upto], root)
    assert resolved.count(root) == 1
    assert log.mtimes == {name: os.stat(real / name).st_mtime_ns for name in paths[:4]}
