"""A pids cgroup per jailed command, for a process limit that binds root too (DESIGN §9).

``RLIMIT_NPROC`` is not enforced for processes whose real uid is root on the host: bubblewrap
run by root maps the jail's uid to root's, and a fork bomb inside would go on until the host
ran out of process ids. So, run as root, each command gets a cgroup of its own in a writable
``pids`` hierarchy (v1 ``/sys/fs/cgroup/pids`` or a v2 tree that offers ``pids``) whose
``pids.max`` caps everything the command starts. Run as another user, ``RLIMIT_NPROC`` does the
job and no cgroup is needed. Empty groups are removed once their command is gone.
"""

from __future__ import annotations

import atexit
import itertools
import os
import threading
import time
from pathlib import Path

_CANDIDATES = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified"))
_PARENT = "ctxlab-jail"
_EXTRA = 3  # bubblewrap's own two processes and the shell that joins the group
_AGE = 30.0  # seconds after which an empty group of this process is surely not about to be used
JOIN = 'echo $$ > "$0/cgroup.procs" && exec "$@"'
"""``sh -c JOIN GROUP ARGV...``: move the shell into GROUP, then become ARGV."""

_lock = threading.Lock()
_counter = itertools.count()


def needed() -> bool:
    """Whether the process limit needs a cgroup here: only when run as root."""
    return os.geteuid() == 0


def hierarchy() -> Path | None:
    """The writable pids hierarchy's folder for the jail's groups, made if missing; None when
    there is none (a read-only /sys/fs/cgroup, as in most containers)."""
    for base in _CANDIDATES:
        if base.name != "pids":
            try:
                if "pids" not in (base / "cgroup.subtree_control").read_text().split():
                    continue
            except OSError:
                continue
        elif not (base / "pids.max").exists() and not (base / "cgroup.procs").exists():
            continue
        parent = base / _PARENT
        try:
            parent.mkdir(exist_ok=True)
            if base.name != "pids":  # v2: the groups below get pids.max only when asked
                (parent / "cgroup.subtree_control").write_text("+pids\n")
        except OSError:
            continue
        if os.access(parent / "cgroup.procs", os.W_OK):
            return parent
    return None


def new_group(parent: Path, processes: int) -> Path:
    """A fresh group below ``parent`` allowing ``processes`` processes to the command."""
    sweep(parent)
    with _lock:
        group = parent / f"{os.getpid()}-{next(_counter)}"
    group.mkdir()
    (group / "pids.max").write_text(f"{processes + _EXTRA}\n")
    return group


def sweep(parent: Path) -> None:
    """Remove the empty groups of processes that have ended, and this process's old ones."""
    now = time.time()
    for group in parent.iterdir() if parent.is_dir() else []:
        owner = group.name.split("-")[0]
        if not group.is_dir() or not owner.isdigit():
            continue
        ours = int(owner) == os.getpid()
        try:
            if ours and now - group.stat().st_mtime < _AGE:
                continue
            if ours or not _alive(int(owner)):
                group.rmdir()  # refused (EBUSY) while a process is in it
        except OSError:
            continue


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@atexit.register
def _remove_ours() -> None:
    parent = hierarchy() if needed() else None
    for group in parent.glob(f"{os.getpid()}-*") if parent else []:
        try:  # noqa: SIM105 (a group still in use stays; the next sweep takes it)
            group.rmdir()
        except OSError:
            pass
