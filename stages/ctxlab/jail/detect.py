"""Whether the jail works here, tried once per process, and why not; the way in (DESIGN §9).

bubblewrap can be installed and still fail: Docker's seccomp profile or a kernel that forbids
unprivileged user namespaces leave ``bwrap`` on PATH but unable to start anything. So the probe
runs the real thing once, ``bwrap … true`` with the options every command gets, and keeps the
first line bubblewrap printed as the reason.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxlab.jail.bubblewrap import Unavailable, build, programs
from ctxlab.jail.limits import Limits

REQUIRE_ENV = "CTXLAB_REQUIRE_JAIL"
_FORBIDDEN = re.compile(r"namespace|not permitted|permission denied|uid map", re.IGNORECASE)
_PROBE_TIMEOUT = 20.0


@dataclass(frozen=True)
class Status:
    """``ok`` when a jailed ``true`` ran; otherwise ``reason`` names what is missing."""

    ok: bool
    reason: str = ""


def required() -> bool:
    """Whether a missing or broken jail is a failure here (``CTXLAB_REQUIRE_JAIL=1``, which
    ``.ci/run`` exports) instead of a reason to fall back."""
    return os.environ.get(REQUIRE_ENV, "") == "1"


@functools.cache
def probe() -> Status:
    """Run ``true`` in the jail once; the result is kept for the life of the process."""
    found = programs()
    if isinstance(found, str):
        return Status(False, found)
    with tempfile.TemporaryDirectory(prefix="ctxlab-jail-probe-") as folder:
        try:
            argv = build(["true"], writable=Path(folder), readonly=(),
                         limits=Limits(256 * 1024 * 1024, 1024 * 1024, 5, 16),
                         cwd=None, env=None)
        except OSError as exc:
            return Status(False, f"cannot prepare the jail: {exc}")
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=_PROBE_TIMEOUT, env={})
        except subprocess.TimeoutExpired:
            return Status(False, f"bwrap did not finish `true` within {_PROBE_TIMEOUT:g} s")
        except OSError as exc:
            return Status(False, f"bwrap could not be started: {exc.strerror or exc}")
    if done.returncode != 0:
        said = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
        detail = said[0] if said else f"exit code {done.returncode}"
        hint = ("; user namespaces are forbidden here (a container's seccomp profile, or a "
                "kernel setting such as kernel.unprivileged_userns_clone=0)"
                if _FORBIDDEN.search(detail) else "")
        return Status(False, f"bwrap failed to start a jailed `true`: {detail}{hint}")
    return Status(True)


def wrap(argv: Sequence[str], *, writable: Path, readonly: Sequence[Path] = (),
         limits: Limits, cwd: Path | None = None,
         env: Mapping[str, str] | None = None) -> list[str]:
    """The full argv to spawn ``argv`` in the jail (``ctxlab.jail.bubblewrap``); ``cwd`` defaults to
    ``writable``, ``env`` (the command's whole environment) to a system ``PATH`` and
    ``HOME=writable``. ``Unavailable`` when ``probe()`` is not ok."""
    status = probe()
    if not status.ok:
        raise Unavailable(status.reason)
    return build(argv, writable=writable, readonly=readonly, limits=limits, cwd=cwd, env=env)
