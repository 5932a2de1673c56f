"""``ctxlab workbook export DIR --exercises N,M``: the copy an instructor hands out."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from ctxlab.cli import main
from ctxlab.workbook import manage
from ctxlab.workbook.layout import handed_out, repo_root, stage


@pytest.fixture(scope="module")
def handout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("export") / "handout"
    assert main(["workbook", "export", str(target), "--exercises", "2"]) == 0
    return target


def _modules(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
            for p in folder.rglob("*.py") if "__pycache__" not in p.parts}


def test_stubs_for_the_exercised_stage_and_no_reference_of_it(handout: Path) -> None:
    files, _ = manage.fresh(stage(2))
    assert _modules(handout / "stages" / "s2_truncate") == files
    assert not list((handout / "solutions" / "s2_truncate").rglob("*.py"))
    hints = tomllib.loads((handout / "solutions" / "s2_truncate" / "hints.toml")
                          .read_text(encoding="utf-8"))  # hints stay, with their Chinese
    assert hints["2.3"]["hints"] and len(hints["2.3"]["zh"]["hints"]) == len(hints["2.3"]["hints"])
    reference = repo_root() / "solutions" / "s1_loop"
    assert _modules(handout / "stages" / "s1_loop") == manage.reference(stage(1))  # unmarked
    assert _modules(handout / "solutions" / "s1_loop") == _modules(reference)
    for kept in ("tests/s2/test_valid.py", "notebooks/02_truncate.ipynb", "stages/ctxlab/cli.py",
                 "solutions/grading.toml", "Makefile", "pyproject.toml"):
        assert (handout / kept).is_file(), kept
    assert not (handout / ".venv").exists() and not list(handout.rglob("__pycache__"))


def test_the_copy_knows_what_it_hands_out(handout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXLAB_ROOT", str(handout))
    assert [s.number for s in handed_out()] == [2]
    assert manage.check() == []  # stage 2 stubs, the other stages the reference: as exported
    flow = yaml.safe_load((handout / ".github" / "workflows" / "classroom.yml").read_text())
    ids = [s.get("id") for s in flow["jobs"]["run-autograding-tests"]["steps"] if s.get("id")]
    assert ids and all(i.startswith(("exercise-2-", "ladder-2")) for i in ids)


@pytest.mark.reliability  # a second pytest session and ruff over the copy: make reliability
def test_make_test_in_the_copy_runs_and_fails_the_exercises(handout: Path) -> None:
    """The copy's own ``make test`` (ruff, then pytest), with this suite's virtualenv and a
    small selection, so no second install is made: stage 2 fails for its stubs, stage 1 — the
    reference there — passes."""
    venv = Path(sys.executable).parent.parent
    env = dict(os.environ, CTXLAB_ROOT=str(handout), PYTEST_ADDOPTS=(
        "-p no:cacheprovider tests/s1/test_estimate.py tests/s2/test_valid.py "
        "tests/s2/test_rounds_and_cut.py"))
    env.pop("CTXLAB_STAGES_ROOT", None)
    done = subprocess.run(["make", "test", f"VENV={venv}", "-o", f"{venv}/.installed"],
                          cwd=handout, env=env, capture_output=True, text=True, check=False)
    out = done.stdout + done.stderr
    assert done.returncode != 0, out[-2000:]
    failed = [line for line in out.splitlines() if line.startswith("FAILED ")]
    assert failed and all(line.startswith("FAILED tests/s2/") for line in failed), out[-2000:]
    assert "NotImplementedError" in out and "Exercise 2." in out
    assert "4 passed" in out  # stage 1's estimate tests, on the reference


def _in_copy(handout: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """A command run in the copy with this suite's virtualenv (no second install)."""
    venv = Path(sys.executable).parent.parent
    env = dict(os.environ, CTXLAB_ROOT=str(handout))
    env.pop("CTXLAB_STAGES_ROOT", None)
    return subprocess.run([*argv, f"VENV={venv}", "-o", f"{venv}/.installed"] if argv[0] == "make"
                          else [str(venv / "bin" / argv[0]), *argv[1:]], cwd=handout, env=env,
                          capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def day_one(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one-day workshop's copy (docs/workshop.md): stages 1 and 2 handed out."""
    target = tmp_path_factory.mktemp("export") / "day-one"
    assert main(["workbook", "export", str(target), "--exercises", "1,2"]) == 0
    return target


def test_make_demo_in_the_copy_says_what_runs_now(day_one: Path) -> None:
    """The participants' first command (docs/workshop.md, day 1) ends well on fresh stubs: one
    line per stage, each running or naming the exercises it needs."""
    done = _in_copy(day_one, "make", "demo")
    assert done.returncode == 0, (done.stdout + done.stderr)[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("stage ")]
    assert len(lines) == 5 and all("needs exercise 1.1, 1.2, 1.3" in x for x in lines), lines
    assert lines[1] == "stage 2: needs exercise 1.1, 1.2, 1.3, 2.1, 2.2, 2.3, 2.4, 2.5 first"
    assert "Traceback" not in done.stdout + done.stderr


def test_an_unfinished_exercise_is_one_line_and_status_2(day_one: Path) -> None:
    done = _in_copy(day_one, "ctxlab", "compare", "--scenario", "bugfix-small")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, \
        done.stderr
    assert done.stderr.startswith("error: Exercise 1.1 — run_loop()")


def test_export_refuses_a_folder_in_use(handout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["workbook", "export", str(handout), "--exercises", "2"]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse's usage error
        main(["workbook", "export", str(handout.parent / "x"), "--exercises", "9"])
    assert "unknown stage 9" in capsys.readouterr().err
