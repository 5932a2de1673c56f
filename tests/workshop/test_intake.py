"""The grader's copy of a package, its fingerprint, what its source says, and what a run's
pipe is taken to say (``ctxlab.room.copying``, ``scan``, ``run.read_pipe``): no run started."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ctxlab.room import copying
from ctxlab.room.copying import Refused, take
from ctxlab.room.run import read_pipe
from ctxlab.room.scan import plugin_code


def _package(folder: Path, **files: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_a_copy_holds_the_same_files_and_its_fingerprint_follows_every_byte(
        tmp_path: Path) -> None:
    one = _package(tmp_path / "a" / "s1_loop", **{"loop.py": "x = 1\n"})
    (one / "__pycache__").mkdir()
    (one / "__pycache__" / "loop.cpython-311.pyc").write_bytes(b"cache")
    two = _package(tmp_path / "b" / "s1_loop", **{"loop.py": "x = 1\n"})
    first = take(one, tmp_path / "copy-a")
    assert take(two, tmp_path / "copy-b") == first  # caches left out
    assert sorted(p.name for p in (tmp_path / "copy-a").iterdir()) == ["__init__.py", "loop.py"]
    (two / "loop.py").write_text("x = 2\n")
    assert take(two, tmp_path / "copy-c") != first
    (two / "loop.py").write_text("x = 1\n")
    (two / "data").mkdir()  # an empty folder is part of the package too
    assert take(two, tmp_path / "copy-d") != first


@pytest.mark.parametrize("kind", ["link to a file", "link to a folder", "named pipe", "socket"])
def test_a_link_or_special_file_is_refused_without_being_opened(
        tmp_path: Path, kind: str) -> None:
    package = _package(tmp_path / "s1_loop")
    entry = package / "odd"
    if kind == "link to a file":
        entry.symlink_to("/etc/hostname")
    elif kind == "link to a folder":
        entry.symlink_to(tmp_path)
    elif kind == "named pipe":
        os.mkfifo(entry)  # opening it for reading would block the grader
    else:
        import socket

        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(entry))
    with pytest.raises(Refused, match=r"^odd is a (link|named pipe|socket): only files"):
        take(package, tmp_path / "copy")


def test_a_package_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    package = _package(tmp_path / "s1_loop")
    with open(package / "big.bin", "wb") as sparse:  # 3 GB that take no disk
        sparse.truncate(3 << 30)
    with pytest.raises(Refused, match="more than 20 MB"):
        take(package, tmp_path / "copy")


def test_a_name_in_any_bytes_is_copied_as_it_is(tmp_path: Path) -> None:
    package = _package(tmp_path / "s1_loop")
    odd = os.fsencode(package) + b"/caf\xe9.txt"  # Latin-1, not UTF-8
    with open(odd, "wb") as out:
        out.write(b"x")
    take(package, tmp_path / "copy")
    assert os.path.exists(os.fsencode(tmp_path / "copy") + b"/caf\xe9.txt")
    assert copying.shown(b"caf\xe9.txt") == "caf\\xe9.txt"
    assert copying.shown("café.txt") == "café.txt"


@pytest.mark.parametrize(("source", "found"), [
    ("import _pytest.python\n", "s1_loop/x.py:1: imports _pytest.python"),
    ("from pluggy import HookimplMarker\n", "s1_loop/x.py:1: imports from pluggy"),
    ("def pytest_runtest_makereport(item, call):\n    pass\n",
     "s1_loop/x.py:1: defines the hook pytest_runtest_makereport()"),
    ("pytest_plugins = ['s1_loop.x']\n", "s1_loop/x.py:1: sets pytest_plugins"),
    ("import gc\n\n[o.pluginmanager for o in gc.get_objects()]\n",
     "s1_loop/x.py:3: uses pytest's pluginmanager"),
    ("from ctxlab.room import sentinel\n", "s1_loop/x.py:1: imports from ctxlab.room"),
])
def test_pytest_machinery_in_the_source_is_found(tmp_path: Path, source: str,
                                                 found: str) -> None:
    package = _package(tmp_path / "s1_loop", **{"x.py": source})
    assert plugin_code(package) == [found]


def test_an_exercise_solution_carries_no_pytest_machinery() -> None:
    from ctxlab.workbook.layout import STAGES, repo_root

    assert [f for s in STAGES for f in plugin_code(repo_root() / "solutions" / s.package)] == []


def _line(**fields: object) -> bytes:
    return json.dumps(fields).encode() + b"\n"


RESULT = {"event": "result", "nodeid": "t.py::a", "stage": 1, "outcome": "failed",
          "exercise": "1.2", "pitfall": None, "not_implemented": True, "message": "",
          "evidence": ""}


def test_the_pipe_counts_up_to_the_end_and_keeps_what_does_not_fit() -> None:
    data = (_line(event="start", nodeid="t.py::a", exercise="1.2") + _line(**RESULT)
            + _line(event="checked", nodeid="t.py::a", code="t.py:1:abc")
            + _line(**{**RESULT, "outcome": "passed"})  # a second result for one test
            + b"not json\n" + _line(event="result", nodeid="t.py::b")  # not a run's shape
            + _line(event="tampered", finding="x was replaced")
            + _line(event="end", exitstatus=1, tampered=[])
            + _line(**{**RESULT, "nodeid": "t.py::c", "outcome": "passed"}))  # after the end
    run = read_pipe(data)
    assert [(r["nodeid"], r["outcome"]) for r in run.records] == [("t.py::a", "failed")]
    assert run.checked == {"t.py::a": "t.py:1:abc"} and run.reported == ["x was replaced"]
    assert run.odd == ["a second result for a", "a line that is not a run's",
                       "a line that is not a run's", "1 line after the session ended"]
    assert [e["event"] for e in run.events] == ["end"]
