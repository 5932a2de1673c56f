"""``ctxlab room`` with every participant in the jail: one room of honest and hostile
submissions of stage 1, graded by the command itself (``--json``, exit code 0), each attack in
its own row and its own test, labelled by what the room does about it:

- *prevented*: the jail or the pipe makes the attack impossible; the row earns what its code
  honestly earns (the handout: 0).
- *detected*: the attack works inside the participant's own process (nothing outside can stop
  code from changing its own memory); the row is flagged tampered and scores 0.

Every test also checks that no other row changed and that the instructor's checkout is as it
was. A selection of stage 1's tests (every exercise keeps some); about twenty runs, so it is in
``make reliability`` (``CTXLAB_SLOW=1``), not in ``make test``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

from ctxlab import jail
from ctxlab.workbook.layout import repo_root

pytestmark = pytest.mark.skipif(not os.environ.get("CTXLAB_SLOW"),
                                reason="a room of twenty runs: make reliability")
SELECT = "estimate or metrics or max_turns or history_alternates"  # exercises 1.1-1.3
RSS_LIMIT_KB = 500 * 1024
FAKE_RESULT = ('{"event": "result", "nodeid": "tests/s1/test_estimate.py::x", "stage": 1, '
               '"outcome": "passed", "exercise": "1.2", "pitfall": null, '
               '"not_implemented": false, "message": "", "evidence": ""}')

ATEXIT = f"""
import atexit, glob, os
def _rewrite():
    for path in glob.glob('**/log.jsonl', recursive=True) + ['.room/log.jsonl']:
        try:
            os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
            open(path, 'w').write({FAKE_RESULT!r} + '\\n')
        except OSError:
            pass
    for fd in os.listdir('/proc/self/fd'):  # every pipe this process holds
        try:
            os.write(int(fd), ({FAKE_RESULT!r} + '\\n').encode())
        except OSError:
            pass
atexit.register(_rewrite)
"""
WRAPPED_OPEN = """
import builtins
_open = builtins.open
class _Forged:
    def __init__(self, file):
        self.file = file
    def write(self, text):
        return self.file.write(text.replace('"failed"', '"passed"')
                               .replace('"not_implemented": true', '"not_implemented": false'))
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        self.file.close()
    def __getattr__(self, name):
        return getattr(self.file, name)
def _wrapped(file, mode='r', *args, **kwargs):
    opened = _open(file, mode, *args, **kwargs)
    return _Forged(opened) if 'a' in mode or 'w' in mode else opened
builtins.open = _wrapped
"""
OTHERS = """
import glob, os
_mine = os.path.realpath(__file__)
_theirs = [p for p in glob.glob({where!r} + '/**/s1_loop/estimate.py', recursive=True)
           if os.path.realpath(p) != _mine]
for _path in _theirs:
    try:
        exec(open(_path).read(), globals())  # another's answers, read in place of mine
    except Exception:
        pass
    try:
        open(_path, 'w').write('raise SystemExit(3)\\n')  # ... and theirs broken
    except OSError:
        pass
for _log in glob.glob({where!r} + '/**/*.json*', recursive=True):
    try:
        open(_log, 'w').write('')
    except OSError:
        pass
"""
INSTRUCTOR = """
import os, subprocess
_test = 'def test_nothing():\\n    pass\\n'
for _root in (os.environ.get('CTXLAB_ROOT', '.'), {checkout!r}):
    _target = os.path.join(_root, 'tests', 's1', 'test_estimate.py')
    try:
        open(_target, 'w').write(_test)
    except OSError:
        pass
    subprocess.run(['sh', '-c', 'printf "%s" "$1" > "$2"', 'sh', _test, _target],
                   check=False, capture_output=True)  # from another process
"""
JSON_ENCODER = """
import json.encoder
_encode = json.encoder.JSONEncoder.encode
def _forged(self, value):
    if isinstance(value, dict) and value.get('event') == 'result':
        value = {**value, 'outcome': 'passed', 'not_implemented': False, 'message': ''}
    return _encode(self, value)
json.encoder.JSONEncoder.encode = _forged
"""
BLANKED = """
import _pytest.python
_pytest.python.Function.runtest = lambda self: None
import gc
for _o in gc.get_objects():
    if type(_o).__name__ == 'Sentinel':
        _report = _o.report
        def _quiet(line, _report=_report):
            if line.get('event') == 'tampered':
                return
            _report({**line, 'tampered': []} if line.get('event') == 'end' else line)
        _o.report = _quiet
"""
# Test modules are imported after this one: a finder wraps the tests of each as it loads.
_LOADER = """
import functools, sys
def _each_test(module):
    for name, value in list(vars(module).items()):
        if name.startswith('test_') and callable(value) and not hasattr(value, '_done'):
            {change}
class _Finder:
    def find_spec(self, name, path, target=None):
        if not name.rpartition('.')[2].startswith('test_'):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, 'find_spec'):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                run = spec.loader.exec_module
                def exec_module(module, run=run):
                    run(module)
                    _each_test(module)
                spec.loader.exec_module = exec_module
                return spec
        return None
sys.meta_path.insert(0, _Finder())
"""
WRAPPED_TESTS = _LOADER.format(change="""@functools.wraps(value)
            def passes(*args, __test=value, **kwargs):
                try:
                    __test(*args, **kwargs)
                except BaseException:
                    pass
            passes._done = True
            setattr(module, name, passes)""")
SWAPPED_CODE = _LOADER.format(change="""code = value.__code__
            names = ', '.join(code.co_varnames[:code.co_argcount])
            space = {}
            exec(f'def passes({names}):\\n    pass\\n', space)
            value.__code__ = space['passes'].__code__
            value._done = True""")
CALLINFO = """
import _pytest.runner as _runner
_from_call = _runner.CallInfo.from_call.__func__
def _swallow(cls, func, when, reraise=None):
    def safe():
        try:
            return func()
        except Exception:
            return None
    return _from_call(cls, safe, when, reraise)
_runner.CallInfo.from_call = classmethod(_swallow)
"""
PLUGIN_MODULE = """
import pytest
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    report.outcome, report.longrepr = 'passed', None
"""
USES_PLUGIN = """
import sys
for _name, _module in list(sys.modules.items()):
    if _name.endswith('test_estimate'):
        _module.pytest_plugins = ['s1_loop.helpers']
"""
ALLOCATE = "_ballast = bytearray(3 * 1024 ** 3)  # 3 GB at import\n"

PREVENTED = {  # name: code added to the handout's estimate.py
    "atexit-rewrites-the-log": ATEXIT,
    "wrapped-open-rewrites-the-log": WRAPPED_OPEN,
    "reads-and-writes-another": OTHERS,
    "writes-the-instructors-tests": INSTRUCTOR,
    "allocates-3-GB-at-import": ALLOCATE,
}
DETECTED = {  # name: (code added to the handout's estimate.py, a finding it must give)
    "replaced-json-encoder": (JSON_ENCODER, "json.encoder.JSONEncoder.encode was"),
    "blanked-tamper-list": (BLANKED, "walked the heap (gc.get_objects)"),
    "tests-wrapped-at-import": (WRAPPED_TESTS, "passed running other code than the instructor"),
    "swapped-test-code": (SWAPPED_CODE, "__code__ was swapped"),
    "patched-callinfo": (CALLINFO, "_pytest.runner.CallInfo.from_call was"),
    "plugin-module-in-the-submission": (
        USES_PLUGIN, "carries pytest machinery: s1_loop/helpers.py:4: defines the hook "
                     "pytest_runtest_makereport()"),
}
HONEST = ("complete", "pristine", "caf\\xe9", "na\\xefve")  # their names as the room shows them


def _digest(folder: Path) -> dict[bytes, str]:
    """Each file's content below ``folder`` (caches and links left out)."""
    return {os.fsencode(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file() and not path.is_symlink()
            and "__pycache__" not in path.parts}


def _stage1(folder: Path, source: str, code: str = "") -> Path:
    package = folder / "stages" / "s1_loop"
    shutil.copytree(repo_root() / source / "s1_loop", package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    estimate = package / "estimate.py"
    estimate.write_text(estimate.read_text(encoding="utf-8") + "\n" + code, encoding="utf-8")
    return package


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    status = jail.probe()
    if not status.ok:
        if jail.required():
            pytest.fail(f"the jail is required here and missing: {status.reason}")
        pytest.skip(f"no jail here: {status.reason}")
    base = tmp_path_factory.mktemp("jailroom")
    subs, temp = base / "submissions", base / "tmp"
    temp.mkdir()
    _stage1(subs / "complete", "solutions")
    _stage1(subs / "pristine", "stages")
    for name, code in PREVENTED.items():
        if code in (OTHERS, INSTRUCTOR):  # they know where to look
            code = code.format(where=str(base), checkout=str(repo_root()))
        _stage1(subs / name, "stages", code)
    for name, (code, _) in DETECTED.items():
        package = _stage1(subs / name, "stages", code)
        if name == "plugin-module-in-the-submission":
            (package / "helpers.py").write_text(PLUGIN_MODULE, encoding="utf-8")
    # names that are not UTF-8: a folder, and a tar (its own name and a member's)
    odd = os.fsencode(subs) + b"/caf\xe9"
    package = _stage1(Path(os.fsdecode(odd)), "solutions")
    with open(os.fsencode(package) + b"/donn\xe9es.txt", "wb") as out:
        out.write(b"latin-1 name\n")
    source = _stage1(base / "tar-src", "solutions")
    with open(os.fsencode(subs) + b"/na\xefve.tar", "wb") as raw, tarfile.open(
            fileobj=raw, mode="w", format=tarfile.GNU_FORMAT, encoding="utf-8",
            errors="surrogateescape") as archive:
        archive.add(source, "stages/s1_loop")
        archive.add(source / "estimate.py", os.fsdecode(b"stages/s1_loop/r\xe9sum\xe9.py"))
    # a named pipe, and a link to a 3 GB file (sparse: no disk), each in a complete package
    fifo = _stage1(subs / "named-pipe", "solutions")
    os.mkfifo(fifo / "queue")
    big = base / "big.bin"
    with open(big, "wb") as sparse:
        sparse.truncate(3 << 30)
    _stage1(subs / "link-to-3-GB", "solutions")
    (subs / "link-to-3-GB" / "stages" / "s1_loop" / "data.bin").symlink_to(big)
    sources = {p.name: _digest(p) for p in subs.iterdir() if p.is_dir()}
    checkout = _digest(repo_root() / "tests")
    # the grader in a process of its own; its peak is its memory's high-water mark (VmHWM),
    # not ru_maxrss, which Linux carries over from the parent's memory through vfork and exec
    grader = ("import atexit, sys\n"
              "def _peak():\n"
              "    with open('/proc/self/status') as status:\n"
              "        kb = next(line.split()[1] for line in status if line[:6] == 'VmHWM:')\n"
              "    sys.stderr.write(f'peak-rss-kb {kb}\\n')\n"
              "atexit.register(_peak)\n"
              "from ctxlab.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    done = subprocess.run(
        [sys.executable, "-c", grader, "room", str(subs), "--stages", "1", "-k", SELECT,
         "--timeout", "300", "--json"], capture_output=True, check=False,
        env={**os.environ, "TMPDIR": str(temp), "COLUMNS": "80"})
    stderr = done.stderr.decode("utf-8", "replace")
    peak = next(int(line.split()[1]) for line in stderr.splitlines()
                if line.startswith("peak-rss-kb"))
    data = json.loads(done.stdout)
    return {"rc": done.returncode, "stderr": stderr, "peak": peak, "base": base,
            "rows": {p["name"]: p for p in data["participants"]}, "json": data,
            "sources": sources, "after": {p.name: _digest(p) for p in subs.iterdir()
                                          if p.is_dir()},
            "checkout": (checkout, _digest(repo_root() / "tests"))}


def _others_untouched(room: dict[str, Any], name: str) -> None:
    """Every honest row as it would be alone, the sources and the checkout unchanged."""
    rows = room["rows"]
    assert room["rc"] == 0, room["stderr"][-2000:]
    for honest in HONEST:
        if honest == name:
            continue
        row = rows[honest]
        assert not row["tampered"] and not row["rejected"], (honest, row)
        expected = 0 if honest == "pristine" else row["max"]
        assert row["total"] == expected, (honest, row["total"], row["exercises"])
    assert room["sources"] == room["after"]
    before, after = room["checkout"]
    assert before == after, ("the instructor's tests were changed",
                             sorted(k for k in before.keys() | after.keys()
                                    if before.get(k) != after.get(k)))


def test_the_room_is_jailed_and_the_honest_rows_are_as_alone(room: dict[str, Any]) -> None:
    assert room["json"]["jailed"] is True
    assert room["rows"]["complete"]["total"] == room["rows"]["complete"]["max"] > 0
    _others_untouched(room, "")


@pytest.mark.parametrize("name", list(PREVENTED))
def test_prevented(room: dict[str, Any], name: str) -> None:
    row = room["rows"][name]
    assert row["total"] == 0, row["exercises"]
    _others_untouched(room, name)


def test_prevented_another_copy_was_neither_read_nor_written(room: dict[str, Any]) -> None:
    """The attacker read the complete submission's answers if it could: it scores as the
    handout does, and the complete one scores full from untouched files."""
    row = room["rows"]["reads-and-writes-another"]
    assert row["total"] == 0 and not row["tampered"], row
    assert room["rows"]["complete"]["total"] == room["rows"]["complete"]["max"]


@pytest.mark.parametrize("name", list(DETECTED))
def test_detected(room: dict[str, Any], name: str) -> None:
    row = room["rows"][name]
    assert row["total"] == 0
    assert any(DETECTED[name][1] in finding for finding in row["tampered"]), row["tampered"]
    _others_untouched(room, name)


@pytest.mark.parametrize("name", ["caf\\xe9", "na\\xefve"])
def test_a_name_in_any_bytes_is_graded_in_its_own_row(room: dict[str, Any], name: str) -> None:
    row = room["rows"][name]
    assert row["total"] == row["max"] > 0 and not row["tampered"] and not row["rejected"]
    _others_untouched(room, name)


@pytest.mark.parametrize(("name", "why"), [
    ("named-pipe", "stages/s1_loop: queue is a named pipe"),
    ("link-to-3-GB", "stages/s1_loop: data.bin is a link")])
def test_a_link_or_pipe_is_one_refused_row_and_the_grader_stays_small(
        room: dict[str, Any], name: str, why: str) -> None:
    row = room["rows"][name]
    assert row["stages"]["1"]["run"] == "refused" and row["total"] == 0
    assert {e["status"] for e in row["exercises"]} == {"REJECTED"}
    assert all(e["detail"].startswith(why) for e in row["exercises"]), row["exercises"][0]
    assert room["peak"] < RSS_LIMIT_KB, f"the grader peaked at {room['peak'] >> 10} MB"
    _others_untouched(room, name)
