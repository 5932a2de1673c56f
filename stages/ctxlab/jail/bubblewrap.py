"""The argv that runs a command inside the jail (DESIGN §9).

bubblewrap starts the command in new namespaces of every kind (no network, its own process
ids, its own mounts), as an unprivileged uid in a user namespace of its own that may not make
another, with every capability dropped, killed with its parent and in a new session (no
terminal to push keys into). What it sees is built from nothing: the system's programs and
libraries (``/usr``, ``/bin``, ``/lib*``) and the few ``/etc`` files they read, all read-only;
the running Python's installation and virtual environment, read-only (the ``python3``
allowance); each ``readonly`` folder, read-only; a private ``/tmp``, a minimal ``/proc`` and
``/dev``; and ``writable``, read-write, at the same path as on the host, so the paths a command
prints are the host's. Nothing else of the host is there: not the repository, not other
workspaces, not the home folder. ``prlimit`` then applies the ``Limits`` and becomes the
command (through ``env``, which takes away the ``PWD`` bubblewrap sets, so the command's
environment is exactly the one given).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from ctxlab.jail import cgroup
from ctxlab.jail.limits import Limits, prlimit_args

UID = GID = 1000  # inside the jail; never 0
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
        "/etc/localtime", "/etc/nsswitch.conf")
_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
_NAMESPACES = ("--unshare-all", "--unshare-user", "--disable-userns", "--uid", str(UID),
               "--gid", str(GID), "--cap-drop", "ALL", "--die-with-parent", "--new-session")


class Unavailable(RuntimeError):
    """The jail cannot run here; the message says why."""


@functools.cache
def programs() -> tuple[str, str, str] | str:
    """The paths of ``bwrap``, ``prlimit`` and ``env``, or the reason the jail cannot be
    built."""
    bwrap = shutil.which("bwrap", path=_SYSTEM_PATH + ":/usr/sbin:/sbin")
    if bwrap is None:
        return ("no bwrap on PATH: install bubblewrap (Debian/Ubuntu: apt-get install "
                "bubblewrap; Fedora: dnf install bubblewrap)")
    prlimit = shutil.which("prlimit", path=_SYSTEM_PATH)
    if prlimit is None:
        return "no prlimit on PATH (util-linux), which sets the jail's limits"
    env = shutil.which("env", path=_SYSTEM_PATH)
    if env is None:
        return "no env on PATH (coreutils)"
    if cgroup.needed() and cgroup.hierarchy() is None:
        return ("run as root with no writable pids cgroup: the process limit would not "
                "hold (root is exempt from RLIMIT_NPROC)")
    return bwrap, prlimit, env


def build(argv: Sequence[str], *, writable: Path, readonly: Sequence[Path], limits: Limits,
          cwd: Path | None, env: Mapping[str, str] | None) -> list[str]:
    """``ctxlab.jail.wrap`` without the probe (the probe itself runs it)."""
    found = programs()
    if isinstance(found, str):
        raise Unavailable(found)
    bwrap, prlimit, env_program = found
    writable = Path(os.path.realpath(writable))
    if env is None:
        env = {"PATH": _SYSTEM_PATH, "HOME": str(writable)}
    command = [bwrap, *_NAMESPACES, *_system_binds(), *_python_binds()]
    for folder in readonly:
        real = os.path.realpath(folder)
        command += ["--ro-bind", real, real]
    command += ["--bind", str(writable), str(writable),
                "--chdir", os.path.realpath(cwd or writable), "--clearenv"]
    for name, value in env.items():
        command += ["--setenv", name, value]
    command += ["--", prlimit, *prlimit_args(limits), "--"]
    if "PWD" not in env:  # bubblewrap sets it with --chdir; the command gets env, exactly
        command += [env_program, "-u", "PWD", "--"]
    command += list(argv)
    if cgroup.needed() and limits.processes is not None:
        parent = cgroup.hierarchy()
        if parent is None:  # checked by programs(); the folder went away since
            raise OSError("the pids cgroup is gone")
        group = cgroup.new_group(parent, limits.processes)
        command = ["/bin/sh", "-c", cgroup.JOIN, str(group), *command]
    return command


@functools.cache
def _system_binds() -> tuple[str, ...]:
    """Read-only system folders (a symlinked ``/bin`` stays a symlink), /etc's few files,
    a private /tmp, /proc and /dev."""
    binds: list[str] = []
    for path in _SYSTEM:
        if os.path.islink(path):
            binds += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            binds += ["--ro-bind", path, path]
    for path in _ETC:
        binds += ["--ro-bind-try", path, path]
    return (*binds, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")


@functools.cache
def _python_binds() -> tuple[str, ...]:
    """The running Python's installation and virtual environment, read-only, unless the
    system folders hold them already."""
    binds: list[str] = []
    for prefix in dict.fromkeys([sys.base_prefix, sys.prefix,
                                 os.path.dirname(os.path.dirname(os.path.realpath(
                                     sys.executable)))]):
        real = os.path.realpath(prefix)
        if not any(Path(real).is_relative_to(p) for p in _SYSTEM if not os.path.islink(p)):
            binds += ["--ro-bind", real, real]
            if real != prefix:
                binds += ["--symlink", real, prefix]
    return tuple(binds)
