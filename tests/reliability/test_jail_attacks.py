"""The jail under attack (issue 45): links, pipes and odd names planted with ``python3``, then
every allowed program with its recursive, dereferencing and list-file options.

A model plants through the ``python3`` allowance, so the planting runs as a command too, in
the boundary under test: links to ``..`` (also as ``sub/up``), to a file and a folder by
absolute path and to a sibling workspace; hard links (to a file outside, and one inside);
names holding a newline and a non-UTF-8 byte that lead out; lists of such names. Links to
``/`` and to the repository root lead into trees too big to walk within a command's time
limit, and a named pipe stops every walk that reaches it until the time limit, so those are
planted by the tests of their own (``test_links_to_the_root_and_the_repository``,
``test_a_pipe_returns_within_the_time_limit``). Each command of ``ATTACKS`` runs three ways:

- ``jail``: the tool as it runs, the option guard in front of the jail;
- ``jail-alone``: the jail without the guard (``capture`` with the command's limits), so the
  jail is shown to hold by itself, not behind the guard's refusals;
- ``guard``: the option guard alone, the fallback without a jail. Its failures are
  ``GUARD_KNOWN``, listed in ``docs/reliability.md`` §5; a test checks that exactly those fail.

Contained means: nothing from outside the workspace in the output — no word of a file there
(the outside folder's, the sibling workspace's, the repository's, ``/etc/passwd``), no name
that only a listing there shows (a path the command or a planted link names may come back in
an error message or a listing of the link) — and a read through a link that leads out fails.
In the jail a walk also ends by itself within the time limit (so all it could reach was
looked at); behind the guard alone, a command that follows links and is not refused counts as
out, whether or not its output shows it before the time limit.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest

from ctxlab.jail.limits import COMMAND_LIMITS
from ctxlab.tools import ToolBox, Workspace, confine
from ctxlab.tools.command import capture, render_output
from ctxlab.tools.results import ToolError

SECRET = "TOPSECRET"  # what the greps look for; each file outside holds it, none inside
MARKERS = ("outside-body", "outside-only-name", "sibling-body", "sibling-only-name",
           "requires-python", "CLAUDE.md", "README.zh-CN.md", "root:x:0:0")
"""Words that only a read or a listing outside the workspace can show."""
REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 2.0
CAP = 4_000_000  # every byte a command prints is checked
MODES = ("jail", "jail-alone", "guard")
PYTHON_BINDS = (os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix))
JAIL_ROOT = ("bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "tmp",
             "usr", *{Path(p).parts[1] for p in PYTHON_BINDS})
"""The names at the jail's root: the system's, and the first folders of the Python binds."""


@dataclass(frozen=True)
class Place:
    """The workspace under attack and what lies outside it."""

    root: Path
    outside: Path
    sibling: Path
    planted: str  # what the planting command printed


PLANT = """\
import os
outside, sibling = open("paths.txt").read().split("\\n")
failed = []
def plant(what, make):
    try:
        make()
    except OSError as error:
        failed.append(f"{what}: {error.strerror}")
os.makedirs("sub", exist_ok=True)
plant("up", lambda: os.symlink("..", "up"))
plant("sub/up", lambda: os.symlink("..", "sub/up"))
plant("abs", lambda: os.symlink(outside + "/secret.txt", "abs"))
plant("absdir", lambda: os.symlink(outside, "absdir"))
plant("sibling", lambda: os.symlink(sibling, "sibling"))
plant("hard.txt", lambda: os.link(outside + "/hard.txt", "hard.txt"))
plant("inner-hard.txt", lambda: os.link("a.txt", "inner-hard.txt"))
plant("newline", lambda: os.symlink(outside + "/secret.txt", "new\\nline"))
plant("non-utf8", lambda: os.symlink(outside + "/secret.txt", b"bad\\xff"))
lists = {"names0.lst": b"new\\nline\\0bad\\xff\\0a.txt\\0",
         "newline.lst": b"new\\nline\\0",
         "nonutf8.lst": b"bad\\xff\\0",
         "abs.lst": (outside + "/secret.txt\\0").encode(),
         "up.lst": ("up/" + os.path.basename(sibling) + "/notes.txt\\0").encode()}
for name, data in lists.items():
    with open(name, "wb") as out:
        out.write(data)
print("planting failed:", "; ".join(failed) if failed else "none")
"""

WALKS = ("grep -r TOPSECRET .", "grep --recursive TOPSECRET .", "grep -d recurse TOPSECRET .",
         "grep --directories=recurse TOPSECRET", "grep -R TOPSECRET .",
         "grep --dereference-recursive TOPSECRET", "grep --der TOPSECRET .",
         "grep -rR TOPSECRET", "grep -5R TOPSECRET .", "grep -1R TOPSECRET .",
         "grep -0r TOPSECRET .", "grep -9Rn TOPSECRET .", "grep -2drecurse TOPSECRET .",
         "grep -R TOPSECRET sub", "grep -r TOPSECRET sub/up", "grep -e -- -R TOPSECRET .",
         "ls -R", "ls --recursive .", "ls -lR .", "ls -RL", "ls -RL sub", "ls -LR .",
         "ls --deref --recursive", "ls -I -- -RL .", "ls -L up", "ls --dereference sibling",
         "ls -H absdir")
"""Commands that walk folders or list through links (each must end by itself in the jail)."""
READS = ("grep -R TOPSECRET absdir", "grep TOPSECRET abs", "grep -f abs x a.txt",
         "grep --file=abs x a.txt", "grep -fabs x a.txt", "grep -H TOPSECRET hard.txt",
         "wc --files0-from=names0.lst", "wc --files0=newline.lst",
         "wc --files0-from nonutf8.lst", "wc --files0-from=abs.lst",
         "wc --files0-from=up.lst", "wc abs", "wc -c hard.txt", "wc -l sibling/notes.txt",
         "cat abs", "cat absdir/secret.txt", "cat up/{sibling}/notes.txt",
         "cat sibling/notes.txt", "cat hard.txt", "head -n 5 abs",
         "head --bytes=100 absdir/secret.txt", "head -c 50 hard.txt", "tail abs",
         "tail --lines=3 sibling/notes.txt", "head -n 1 up/../../etc/passwd",
         "python3 -c \"print(open('abs').read())\"",
         "python3 -c \"print(open('{outside}/secret.txt').read())\"",
         "python -c \"print(open('sibling/notes.txt').read())\"",
         "python3 -c \"print(open('/proc/self/root{outside}/secret.txt').read())\"",
         "python -c \"print(open('bad\\udcff'.encode('utf-8', 'surrogateescape')).read())\"",
         "pytest -q -p no:cacheprovider sibling", "pytest -q -p no:cacheprovider absdir")
"""Commands that read a file through a link leading out: each must fail."""
LOOKS = ("python3 -c \"import os; print(os.listdir('up'))\"",
         "python3 -c \"import itertools as i, os; "
         "print([d for d, _, _ in i.islice(os.walk('.', followlinks=True), 300)])\"",
         "pytest -q -p no:cacheprovider --rootdir=up up")
"""Commands that look around through links without a named file to read."""
ATTACKS = WALKS + READS + LOOKS
FOLLOWS = frozenset(WALKS + LOOKS[1:2]) - {
    "grep -r TOPSECRET .", "grep --recursive TOPSECRET .", "grep -d recurse TOPSECRET .",
    "grep --directories=recurse TOPSECRET", "grep -0r TOPSECRET .", "ls -R", "ls --recursive .",
    "ls -lR ."}
"""The walks that follow links (``-R``, ``-L``, ``-H``, a link named as a folder)."""

GUARD_KNOWN = frozenset({
    "grep -5R TOPSECRET .", "grep -1R TOPSECRET .", "grep -9Rn TOPSECRET .",
    "grep -0r TOPSECRET .", "grep -2drecurse TOPSECRET .", "grep -R TOPSECRET sub",
    "ls -RL sub", "wc --files0=newline.lst", "wc --files0-from nonutf8.lst",
    *(c for c in READS + LOOKS if c.startswith("python"))})
"""What gets out behind the option guard alone (``docs/reliability.md`` §5)."""


def _folder(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix)).resolve()


@pytest.fixture
def place(request: pytest.FixtureRequest) -> Iterator[Place]:
    """A workspace with everything planted by ``python3`` in the boundary under test."""
    mode = request.node.callspec.params["mode"]
    if mode != "guard":
        request.getfixturevalue("needs_jail")
    outside = _folder("ctxlab-outside-")
    (outside / "secret.txt").write_text(f"{SECRET} outside-body\n")
    (outside / "hard.txt").write_text(f"HARD {SECRET} outside-body\n")
    (outside / "outside-only-name.txt").write_text(f"{SECRET} outside-body\n")
    source = _folder("attack-")
    (source / "a.txt").write_text("alpha\n")
    (source / "notes.txt").write_text("workspace notes\n")
    sibling_source = _folder("sibling-")
    (sibling_source / "notes.txt").write_text(f"{SECRET} sibling-body\n")
    (sibling_source / "sibling-only-name.txt").write_text("sibling-body\n")
    with Workspace(source) as workspace, Workspace(sibling_source) as sibling:
        (workspace.root / "plant.py").write_text(PLANT)
        (workspace.root / "paths.txt").write_text(f"{outside}\n{sibling.root}")
        planted = run(mode, workspace.root, "python3 plant.py")
        yield Place(workspace.root, outside, sibling.root, planted)
    for folder in (outside, source, sibling_source):
        shutil.rmtree(folder, ignore_errors=True)


def run(mode: str, root: Path, command: str, timeout: float = TIMEOUT) -> str:
    """``command`` in ``root`` behind the boundary ``mode`` names: its output and exit code
    as the tool gives them, or the error."""
    if mode == "jail-alone":
        try:
            captured = capture(shlex.split(command), root, timeout=timeout, cap=CAP,
                               limits=COMMAND_LIMITS)
        except ToolError as error:
            return f"Error: {error}"
        text = render_output(captured, CAP)
        if captured.timed_out:
            return f"Error: the command timed out after {timeout:g} s; output so far:\n{text}"
        return f"{text}\n[exit code: {captured.exit_code}]"
    box = ToolBox(root, timeout=timeout, output_cap=CAP)
    with mock.patch.object(confine, "jailed", return_value=mode == "jail"):
        return box.run("run_command", {"command": command}).content


def leaks(output: str, place: Place) -> list[str]:
    """What of the outside shows in ``output``: a marker, or the name of the outside folder
    or the sibling workspace where no planted path names it (a listing of ``/tmp``)."""
    found = [marker for marker in MARKERS if marker in output]
    named = output
    for known in (str(place.outside), str(place.sibling), f"up/{place.sibling.name}"):
        named = named.replace(known, "")
    return found + [folder.name for folder in (place.outside, place.sibling)
                    if folder.name in named]


def failed(output: str) -> bool:
    """Whether the command was refused, failed or timed out."""
    return output.startswith("Error:") or not output.endswith("[exit code: 0]")


def refused(output: str) -> bool:
    """Whether the guard refused the command (it never ran)."""
    return output.startswith("Error:") and "timed out" not in output.split("\n", 1)[0]


def _attack(place: Place, command: str) -> str:
    return command.format(outside=place.outside, sibling=place.sibling.name)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", ATTACKS)
def test_only_the_workspace_shows(place: Place, mode: str, command: str) -> None:
    output = run(mode, place.root, _attack(place, command))
    shown = leaks(output, place)
    read = command in READS and not failed(output)
    if mode == "guard":
        followed = command in FOLLOWS and not refused(output)
        escaped = bool(shown) or read or followed
        assert escaped is (command in GUARD_KNOWN), (
            f"{command!r} behind the guard alone: {'out' if escaped else 'contained'}, "
            f"GUARD_KNOWN says otherwise: {shown}\n{output[:2000]}")
        return
    assert not shown and not read, f"{command!r} ({mode}) got out: {shown}\n{output[:2000]}"
    if command in WALKS:
        ended = "timed out" not in output.split("\n", 1)[0]
        assert ended, f"{command!r} did not end by itself:\n{output[:500]}"


@pytest.mark.parametrize("mode", ("jail", "jail-alone"))
def test_links_to_the_root_and_the_repository(place: Place, mode: str) -> None:
    """``root`` → ``/`` and ``repo`` → the repository root: the jail shows its own root (the
    system's folders and the Python it binds) and of the repository only the virtual
    environment bound inside it; the home folder holds only what the Python binds put there."""
    run(mode, place.root, f"python3 -c \"import os; os.symlink('/', 'root'); "
                          f"os.symlink('{REPO}', 'repo')\"")
    jail_root = run("jail-alone", place.root, "ls -L root")
    assert set(jail_root.rsplit("\n", 1)[0].split()) <= set(JAIL_ROOT), jail_root
    named = run(mode, place.root, "python3 -c \"import os; print(*os.listdir('/'))\"")
    assert set(named.rsplit("\n", 1)[0].split()) <= set(JAIL_ROOT), named
    home = Path.home()
    listed = run(mode, place.root, f"python3 -c \"import os; p = '{home}'; "
                 f"print(*(os.listdir(p) if os.path.isdir(p) else ['missing']))\"")
    binds = {Path(p).relative_to(home).parts[0] for p in PYTHON_BINDS
             if Path(p).is_relative_to(home) and Path(p) != home}
    assert set(listed.rsplit("\n", 1)[0].split()) <= binds | {"missing"}, listed
    for command in ("ls -aRL repo", "cat repo/pyproject.toml", "tail -c 20 repo/AGENTS.md",
                    "cat root/etc/passwd", "head root/etc/shadow", "ls -aL root/root",
                    "python3 -c \"import glob; print(glob.glob('repo/*'))\"",
                    "pytest -q -p no:cacheprovider --co repo",
                    "grep -R TOPSECRET repo", "grep -5R TOPSECRET root/tmp"):
        output = run(mode, place.root, command)
        assert not leaks(output, place), (command, output[:2000])
        if command.startswith(("cat", "tail", "head")):
            assert failed(output), (command, output[:2000])


@pytest.mark.parametrize("mode", ("jail", "guard"))
def test_what_python_could_plant(place: Place, mode: str) -> None:
    """In the jail the outside is not there: a hard link to a file outside cannot be made."""
    assert "planting failed:" in place.planted, place.planted
    assert ("hard.txt: No such file" in place.planted) is (mode == "jail"), place.planted
    assert (place.root / "new\nline").is_symlink() and (place.root / os.fsdecode(b"bad\xff")
                                                         ).is_symlink()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", ["wc --files0-from=pipe", "cat pipe", "grep -R TOPSECRET .",
                                     "grep -5R TOPSECRET .", "head pipe", "tail -f pipe"])
def test_a_pipe_returns_within_the_time_limit(place: Place, mode: str, command: str) -> None:
    """A named pipe nobody writes to: the guard never opens it, the command ends at the
    latest at its time limit, and nothing outside shows on the way."""
    run(mode, place.root, "python3 -c \"import os; os.mkfifo('pipe')\"")
    started = time.monotonic()
    output = run(mode, place.root, command, timeout=1.0)
    assert time.monotonic() - started < 1.0 + 3.0, output  # the time limit and the grace
    assert failed(output)
    if mode != "guard":
        assert not leaks(output, place), output


@pytest.mark.usefixtures("needs_jail")
@pytest.mark.parametrize("argv", [
    ["mount", "-o", "remount,rw", "/"], ["mount", "-o", "remount,rw,bind", "/usr"],
    ["/usr/sbin/chroot", "/", "/usr/bin/true"], ["unshare", "-r", "true"],
    ["unshare", "-m", "true"], ["mknod", "null2", "c", "1", "3"],
    ["python3", "-c", "open('/proc/self/root/usr/ctxlab-pwned', 'w')"],
    ["python3", "-c", "open('/proc/1/root/usr/ctxlab-pwned', 'w')"],
    ["python3", "-c", "import os; os.setuid(0)"]],
    ids=["remount-root", "remount-usr", "chroot", "unshare-user", "unshare-mount", "mknod",
         "proc-self-root", "proc-1-root", "setuid-0"])
def test_root_powers_are_gone(tmp_path: Path, argv: list[str]) -> None:
    """Run as root too (CI): every capability is dropped in the jail's user namespace."""
    captured = capture(argv, tmp_path, timeout=5.0, cap=10_000, limits=COMMAND_LIMITS)
    assert captured.exit_code != 0, render_output(captured, 10_000)
    assert not Path("/usr/ctxlab-pwned").exists() and not (tmp_path / "null2").exists()


@pytest.mark.usefixtures("needs_jail")
@pytest.mark.parametrize(("code", "ends"), [
    ("import os\nwhile True:\n    os.fork()\n", "fork"),
    ("block = bytearray(3 * 2**30)\n", "MemoryError"),
    ("with open('big', 'wb') as out:\n    for _ in range(2048):\n"
     "        out.write(bytes(2**20))\n", "size"),
], ids=["fork-bomb", "3-GB-allocation", "2-GB-write"])
def test_a_runaway_ends_that_command_alone(tmp_path: Path, code: str, ends: str) -> None:
    (tmp_path / "runaway.py").write_text(code)
    box = ToolBox(tmp_path, timeout=5.0)
    started = time.monotonic()
    output = box.run("run_command", {"command": "python3 runaway.py"}).content
    assert time.monotonic() - started < 5.0 + 3.0, output
    assert not output.endswith("[exit code: 0]"), output
    big = tmp_path / "big"
    assert not big.exists() or big.stat().st_size <= COMMAND_LIMITS.file_size  # type: ignore[operator]
    after = box.run("run_command", {"command": "python3 -c \"print('still here')\""})
    assert after.content == "still here\n[exit code: 0]"  # the next command runs as usual
