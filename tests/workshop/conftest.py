"""A room of synthetic submissions, graded once for the whole session (``ctxlab room``).

Stages 1–2 with a selection of their fast tests (every exercise keeps at least one), run in
parallel. The cheat's stage 2 is the handout's, graded once with the pristine one's. The
hanging submission waits out the time limit, so it is graded in a room of its own
(``hung``), by the ``reliability`` tests of ``test_room_hang.py``.
"""

from __future__ import annotations

import io
import shutil
import tarfile
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from ctxlab.room.room import Participant, grade_room
from ctxlab.workbook.layout import repo_root, stage

SELECT = ("estimate or metrics or max_turns or history_alternates or rounds or cut or valid "
          "or no_calls or unchanged or changed_result or argument_order or drops_four "
          "or under_the_threshold")
TIMEOUT = 60  # seconds: the hanging run's cost (overlapping the others); a run of this
# selection takes a few on an idle machine, over 30 on a loaded one
ESCAPED = "escaped.txt"  # the file the hanging submission writes beside its copy
ONE_LINER = "import _pytest.python; _pytest.python.Function.runtest = lambda self: None\n"


@dataclass
class Room:
    base: Path
    graded: list[Participant]

    def __getitem__(self, name: str) -> Participant:
        return next(p for p in self.graded if p.name == name)


def _checkout(target: Path, s1: str, s2: str) -> Path:
    """A participant's checkout: tests, lab bench, project file, and stages 1–2 as given."""
    root = repo_root()
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(root / "tests", target / "tests", ignore=skip)
    shutil.copytree(root / "stages" / "ctxlab", target / "stages" / "ctxlab", ignore=skip)
    shutil.copy2(root / "pyproject.toml", target / "pyproject.toml")
    for package, source in (("s1_loop", s1), ("s2_truncate", s2)):
        shutil.copytree(root / source / package, target / "stages" / package, ignore=skip)
    return target


@pytest.fixture(scope="session")
def room(tmp_path_factory: pytest.TempPathFactory) -> Room:
    base = tmp_path_factory.mktemp("room")
    folder = base / "submissions"
    _checkout(folder / "pristine", "stages", "stages")
    _checkout(folder / "complete", "solutions", "solutions")
    tampered = _checkout(folder / "tampered", "solutions", "solutions")
    valid = tampered / "stages" / "s2_truncate" / "valid.py"  # 2.4 wrong: never finds a fault
    valid.write_text(valid.read_text(encoding="utf-8").replace(
        "    ### BEGIN SOLUTION 2.4\n", "    return None\n    ### BEGIN SOLUTION 2.4\n", 1),
        encoding="utf-8")
    (tampered / "tests" / "s2" / "test_valid.py").write_text(  # ... and its test "fixed"
        "def test_valid_history_passes():\n    assert True\n", encoding="utf-8")
    (folder / "notes.txt").write_text("not a submission", encoding="utf-8")
    cheat = _checkout(folder / "cheat", "stages", "stages")  # the handout plus one line
    loop = cheat / "stages" / "s1_loop" / "loop.py"
    loop.write_text(loop.read_text(encoding="utf-8") + ONE_LINER, encoding="utf-8")
    with zipfile.ZipFile(folder / "dup.zip", "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate it writes
        for path in sorted((cheat / "stages" / "s1_loop").glob("*.py")):
            archive.write(path, f"stages/s1_loop/{path.name}")
        archive.writestr("stages/s1_loop/loop.py", "# a second loop.py")
    crash = _checkout(base / "crash-src", "solutions", "solutions")  # 2.5 kills the process
    thrash = crash / "stages" / "s2_truncate" / "thrash.py"
    thrash.write_text(thrash.read_text(encoding="utf-8").replace(
        "    ### BEGIN SOLUTION 2.5\n", "    import os\n    os._exit(3)\n"
        "    ### BEGIN SOLUTION 2.5\n"), encoding="utf-8")
    with tarfile.open(folder / "crash.tar.gz", "w:gz") as archive:
        archive.add(crash / "stages" / "s1_loop", "crash/stages/s1_loop")
        archive.add(crash / "stages" / "s2_truncate", "crash/stages/s2_truncate")
        link = tarfile.TarInfo("crash/stages/escape")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc"
        archive.addfile(link)
        absolute = tarfile.TarInfo("/tmp/absolute.txt")
        absolute.size = 1
        archive.addfile(absolute, io.BytesIO(b"x"))
    work = base / "work"
    work.mkdir()
    graded = grade_room([folder], [stage(1), stage(2)], work, timeout=TIMEOUT, select=SELECT)
    return Room(base, graded)


@pytest.fixture(scope="session")
def hung(tmp_path_factory: pytest.TempPathFactory) -> Room:
    """A room of one zip whose exercise 1.2 tries to write outside its copy and hangs, with a
    member that climbs out of its folder."""
    base = tmp_path_factory.mktemp("hung")
    escaped = base / ESCAPED
    hang = _checkout(base / "hang-src", "solutions", "solutions")
    estimate = hang / "stages" / "s1_loop" / "estimate.py"
    estimate.write_text(estimate.read_text(encoding="utf-8").replace(
        "    ### BEGIN SOLUTION 1.2\n",
        "    try:\n"
        f"        open({str(escaped)!r}, 'w').write('written from the copy')\n"
        "    except OSError:  # the jail has no such folder\n"
        "        pass\n"
        "    import threading\n    threading.Event().wait()  # hangs, without burning a core\n"
        "    ### BEGIN SOLUTION 1.2\n"), encoding="utf-8")
    with zipfile.ZipFile(base / "hang.zip", "w") as archive:
        for path in sorted((hang / "stages").rglob("*.py")):
            if "ctxlab" not in path.parts:
                archive.write(path, path.relative_to(hang).as_posix())
        archive.writestr("../outside.txt", "a member that climbs out")
    work = base / "work"
    work.mkdir()
    graded = grade_room([base / "hang.zip"], [stage(1), stage(2)], work, timeout=TIMEOUT,
                        select=SELECT)
    return Room(base, graded)
