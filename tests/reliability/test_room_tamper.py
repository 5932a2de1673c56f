"""Ways to fake a stage's result from the participant's own code, each caught by the room's
in-process checks alone (``ctxlab.room.sentinel``, ``ctxlab.room.verdict``): graded without the
jail, as ``ctxlab room --no-jail`` does, so that what the checks see is not hidden by what the
jail prevents (``test_room_jail.py`` grades in the jail). Each is the handout of stage 1 (or
the reference, where the fake needs passing tests) plus a few lines at the end of
``estimate.py``, graded on ``tests/s1/test_estimate.py`` and the ladder's ``estimate`` cells.
Twelve runs of a worker: in ``make reliability`` (``CTXLAB_SLOW=1``), not in ``make test``.
"""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest

from ctxlab.room.run import OK, Run, grade_copy, make_ref
from ctxlab.room.verdict import expected, findings
from ctxlab.workbook.layout import repo_root, stage

pytestmark = pytest.mark.skipif(not os.environ.get("CTXLAB_SLOW"),
                                reason="twelve graded runs: make reliability")
TESTS, SELECT = ["tests/s1/test_estimate.py", "tests/ladder"], "estimate"
FORCE = """
import pytest
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    report.outcome, report.longrepr = "passed", None
"""
CHEATS = {  # name: (code appended to the handout's estimate.py, a finding it must give)
    "runtest": ("import _pytest.python\n_pytest.python.Function.runtest = lambda self: None\n",
                "_pytest.python.Function.runtest was replaced"),
    "conftest": ("import os, pathlib\n"
                 "_d = pathlib.Path(os.environ['CTXLAB_ROOT'], 'tests/ladder/extra')\n_d.mkdir()\n"
                 f"(_d / 'conftest.py').write_text({FORCE!r})\n"
                 "(_d / 'test_more.py').write_text('def test_more(): pass')\n",
                 "a foreign plugin was registered: tests/ladder/extra/conftest.py"),
    "skip-at-import": ("import pytest\npytest.skip('later', allow_module_level=True)\n",
                       "tests/s1/test_estimate.py was skipped at import"),
    "xfail-in-a-test": ("import pytest\ndef estimate_tokens(*a, **k):\n    pytest.xfail('x')\n",
                        "skipped or xfailed at run time"),
    "sys-exit-at-import": ("import sys\nsys.exit(0)\n", "never reported"),
    "os-exit-at-import": ("import os\nos._exit(0)\n",
                          "the test process exited with code 0 before pytest finished"),
    "sys-exit-in-a-test": ("import sys\ndef estimate_tokens(*a, **k):\n    sys.exit(0)\n",
                           "test_text_blocks_and_string_content called sys.exit"),
    "os-exit-in-a-test": ("import os\ndef estimate_tokens(*a, **k):\n    os._exit(0)\n",
                          "the test process exited with code 0 before pytest finished"),
    "testreport": ("import _pytest.reports as r\n_init = r.TestReport.__init__\n"
                   "def _fake(self, *a, **k):\n    _init(self, *a, **k)\n"
                   "    self.outcome = 'passed'\nr.TestReport.__init__ = _fake\n",
                   "_pytest.reports.TestReport.__init__ was replaced"),
    "makereport-registered": (
        "import gc, types, pytest\n_m = types.ModuleType('forcer')\n"
        f"exec({FORCE!r}, _m.__dict__)\n"
        "_c = next(o for o in gc.get_objects() if isinstance(o, pytest.Config))\n"
        "_c.pluginmanager.register(_m, 'forcer')\n",
        "a foreign pytest_runtest_makereport implementation: forcer"),
    "pytest-plugins": (
        "import pathlib, sys\n"
        f"pathlib.Path(__file__).with_name('cheat.py').write_text({FORCE!r})\n"
        "for _name, _module in list(sys.modules.items()):\n"
        "    if _name.endswith('test_estimate'):\n"
        "        _module.pytest_plugins = ['s1_loop.cheat']\n",
        "a foreign plugin was registered: s1_loop.cheat"),
}
FAKE_NEEDS_PASSES = {"runtest", "testreport", "xfail-in-a-test"}  # graded on the handout


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Run, list[str]]]:
    base = tmp_path_factory.mktemp("tamper")
    collected = expected(stage(1), SELECT, TESTS)

    def one(name: str) -> tuple[Run, list[str]]:
        source = "solutions" if name == "honest" else "stages"
        package = base / "src" / name / "s1_loop"
        shutil.copytree(repo_root() / source / "s1_loop", package)
        code = "" if name == "honest" else CHEATS[name][0]
        estimate = package / "estimate.py"
        estimate.write_text(estimate.read_text(encoding="utf-8") + "\n" + code, encoding="utf-8")
        mine, ref = base / name, base / f"ref-{name}"
        shutil.copytree(package, mine / "stages" / "s1_loop")
        ref.mkdir()
        make_ref(ref, stage(1), collected.modules)
        run = grade_copy(ref, mine, stage(1), timeout=120, select=SELECT, tests=TESTS,
                         jailed=False)
        return run, findings(run, collected.tests)

    names = [*CHEATS, "honest"]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip(names, pool.map(one, names), strict=True))


def test_the_honest_reference_is_not_flagged(graded: dict[str, tuple[Run, list[str]]]) -> None:
    run, found = graded["honest"]
    assert found == [] and run.status == OK
    outcomes = {r["outcome"] for r in run.records}  # other stages' cells are deselected
    assert "passed" in outcomes and outcomes <= {"passed", "xfailed", "skipped"}


@pytest.mark.parametrize("name", list(CHEATS))
def test_each_fake_is_caught(graded: dict[str, tuple[Run, list[str]]], name: str) -> None:
    run, found = graded[name]
    assert any(CHEATS[name][1] in f for f in found), found
    if name in FAKE_NEEDS_PASSES - {"xfail-in-a-test"}:  # inside the process, the fake worked
        exercise = [r for r in run.records if r["nodeid"].startswith("tests/s1/")]
        assert exercise and {r["outcome"] for r in exercise} == {"passed"}
