"""The jail's interface (``ctxlab.jail``, DESIGN §9): what a jailed command sees and may do.

Where bubblewrap cannot run, these tests skip with the probe's reason — unless
``CTXLAB_REQUIRE_JAIL=1`` (CI), where a missing jail fails them.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxlab import jail
from ctxlab.jail import bubblewrap as wrap_module
from ctxlab.jail import detect as probe_module

LIMITS = jail.Limits(address_space=512 * 2**20, file_size=2**20, cpu_seconds=5, processes=32)
REPO = Path(__file__).resolve().parents[2]


Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def jailed(tmp_path: Path, needs_jail: None) -> Run:
    """Run argv in the jail with ``tmp_path`` writable (keyword arguments go to ``wrap``)."""
    def run(*argv: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        command = jail.wrap(list(argv), writable=tmp_path, limits=LIMITS, **kwargs)
        return subprocess.run(command, capture_output=True, text=True, timeout=30, env={})
    return run


def test_the_command_runs_unprivileged_in_the_writable_folder(tmp_path: Path, jailed: Run) -> None:
    done = jailed("sh", "-c", "id -u; id -g; pwd; grep CapEff /proc/self/status; "
                  "echo made > made.txt")
    uid, gid, cwd, caps = done.stdout.split("\n")[:4]
    assert done.returncode == 0, done.stderr
    assert (uid, gid) != ("0", "0") and uid == str(wrap_module.UID)
    assert cwd == str(tmp_path.resolve())  # the same path as on the host
    assert caps.split()[1] == "0000000000000000"
    assert (tmp_path / "made.txt").read_text() == "made\n"


def test_nothing_else_of_the_host_is_visible(tmp_path: Path, jailed: Run) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-sibling"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP")
    (tmp_path / "up").symlink_to(outside)
    done = jailed("sh", "-c", f"cat up/secret.txt; cat {outside}/secret.txt; "
                  f"ls {REPO}; ls {Path.home()}; ls /etc; cat /etc/hostname")
    assert "TOP" not in done.stdout
    assert done.stdout.split() == sorted(done.stdout.split())  # only /etc's few names
    assert set(done.stdout.split()) <= {"alternatives", "ld.so.cache", "ld.so.conf",
                                        "ld.so.conf.d", "localtime", "nsswitch.conf"}


def test_readonly_folders_are_there_and_cannot_be_written(tmp_path: Path, jailed: Run) -> None:
    shared = tmp_path.parent / f"{tmp_path.name}-ro"
    shared.mkdir()
    (shared / "data.txt").write_text("shared")
    done = jailed("sh", "-c", f"cat {shared}/data.txt; echo x > {shared}/new",
                  readonly=[shared])
    assert done.stdout == "shared"
    assert done.returncode != 0 and not (shared / "new").exists()


def test_env_is_exactly_what_is_given(jailed: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-never")
    done = jailed("env", env={"PATH": "/usr/bin:/bin", "ONLY": "this"})
    assert sorted(done.stdout.split()) == ["ONLY=this", "PATH=/usr/bin:/bin"]


def test_the_limits_are_set_inside(tmp_path: Path, jailed: Run) -> None:
    done = jailed("cat", "/proc/self/limits")
    rows = {line[:26].strip(): line[26:].split()[:2] for line in done.stdout.splitlines()}
    assert rows["Max address space"] == [str(512 * 2**20)] * 2
    assert rows["Max file size"] == [str(2**20)] * 2
    assert rows["Max cpu time"] == ["5", "5"]
    assert rows["Max processes"] == ["32", "32"]


def test_no_network_and_no_nested_namespace(tmp_path: Path, jailed: Run) -> None:
    done = jailed("sh", "-c", "cat /proc/net/dev | wc -l; unshare -r true; echo $?")
    interfaces, code = done.stdout.split()
    assert int(interfaces) <= 3  # the header's two lines and the loopback
    assert code != "0"


def test_the_python_allowance_runs_but_sees_no_repository(tmp_path: Path, jailed: Run) -> None:
    import sys

    done = jailed(sys.executable, "-c", "import json, ctxlab",
                  env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})
    assert "ModuleNotFoundError" in done.stderr or "No module named" in done.stderr


def test_an_unavailable_jail_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(probe_module, "probe", lambda: jail.Status(False, "no bwrap on PATH"))
    with pytest.raises(jail.Unavailable, match="no bwrap on PATH"):
        jail.wrap(["true"], writable=tmp_path, limits=LIMITS)


def test_a_broken_bwrap_is_named_in_the_reason(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(wrap_module, "programs",
                        lambda: (str(fake), "/usr/bin/prlimit", "/usr/bin/env"))
    jail.probe.cache_clear()
    try:
        status = jail.probe()
    finally:
        jail.probe.cache_clear()
    assert not status.ok and "setting up uid map: Permission denied" in status.reason


def test_required_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(probe_module.REQUIRE_ENV, "1")
    assert jail.required()
    monkeypatch.setenv(probe_module.REQUIRE_ENV, "0")
    assert not jail.required()


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="processes"):
        jail.Limits(None, None, None, 0)


@pytest.mark.skipif(os.geteuid() != 0, reason="root's process limit is the cgroup's")
def test_as_root_each_command_gets_a_pids_group(tmp_path: Path, jailed: Run) -> None:
    done = jailed("true")
    command = jail.wrap(["true"], writable=tmp_path, limits=LIMITS)
    group = Path(command[3])
    assert done.returncode == 0
    assert (group / "pids.max").read_text().strip() == str(32 + 3)


def _ci_installs(tmp_path: Path, present: tuple[str, ...]) -> list[str]:
    """The packages ``.ci/run``'s set-up (everything before its first ``make``) asks apt-get
    for, on a PATH where only ``present`` of the programs it probes exist (stubs)."""
    script = (REPO / ".ci" / "run").read_text()
    tmp_path.mkdir()
    setup = tmp_path / "setup"
    setup.write_text(script[: script.index("\nmake ")])
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "apt.log"
    stubs = {"apt-get": f'echo "$@" >> {log}', "id": "echo 0"}
    stubs |= {name: "true" for name in present}
    for name, body in stubs.items():
        (bin_ / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_ / name).chmod(0o755)
    for name in ("dirname", "env", "grep"):
        (bin_ / name).symlink_to(subprocess.run(["sh", "-c", f"command -v {name}"],
                                                capture_output=True, text=True).stdout.strip())
    subprocess.run(["/bin/bash", str(setup)], env={"PATH": str(bin_)}, check=True,
                   cwd=tmp_path)
    lines = log.read_text().splitlines() if log.exists() else []
    return [word for line in lines if line.startswith("install") for word in line.split()]


def test_ci_installs_bubblewrap_and_requires_the_jail(tmp_path: Path) -> None:
    """``.ci/run`` installs bubblewrap when it is missing (and only then) and exports the
    flag that turns a missing jail into a failure, before any test runs."""
    assert "bubblewrap" in _ci_installs(tmp_path / "without", ())
    assert "bubblewrap" not in _ci_installs(tmp_path / "with", ("bwrap",))
    script = (REPO / ".ci" / "run").read_text()
    flag = script.index(f"export {probe_module.REQUIRE_ENV}=1")
    assert flag < script.index("make test") and flag < script.index("make reliability")
