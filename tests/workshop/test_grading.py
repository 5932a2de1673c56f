"""Points and a score (``solutions/grading.toml``), ``ctxlab grade --json`` and ``--junit``, and
the GitHub Classroom workflow made from the same table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from junitparser import Failure, JUnitXml, Properties, Property

from ctxlab.cli import main
from ctxlab.ladder import LADDER, NA, Cell
from ctxlab.workbook import classroom, grade, points, progress
from ctxlab.workbook.layout import STAGES, impl_root, repo_root, stage
from ctxlab.workbook.manage import fresh

WORKFLOW = repo_root() / "docs" / "classroom" / "classroom.yml"


def record(exercise: str | None, outcome: str, *, stub: bool = False, message: str = "",
           cell: str = "") -> dict[str, Any]:
    name = f"test_cell[{cell}]" if cell else f"test_{(exercise or '').replace('.', '_')}"
    return {"nodeid": f"tests/s2/test_x.py::{name}", "stage": 2, "exercise": exercise,
            "outcome": outcome, "not_implemented": stub, "message": message,
            "pitfall": {"fixed_in": 3, "why": "§12.2 thrash"} if cell else None,
            "evidence": "duplicate-call rate 17 %" if cell else ""}


@pytest.fixture
def stage2(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Stage 2 graded without the pytest subprocess: 2.1 done, 2.2 a stub, 2.3 failing (a
    first attempt: what passed is kept aside), the thrash cell showing its pitfall (2.4 and
    2.5 ran no test)."""
    monkeypatch.setattr(progress, "_state_file", lambda: tmp_path / "passed.json")
    results = [record("2.1", "passed"), record("2.2", "failed", stub=True),
               record("2.3", "failed", message="assert 4 == 2"),
               record(None, "xfailed", cell="thrash[2]")]
    monkeypatch.setattr(grade, "run_tests", lambda s, chain="reference": results)


def test_the_table_has_defaults_and_refuses_bad_points(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    table = points.load()
    assert table.of_exercise("2.3") == table.exercise > 0 and table.of_rung("thrash") > 0
    (tmp_path / "grading.toml").write_text('[exercise]\n"2.3" = 20\n[pitfall]\nthrash = 0\n')
    monkeypatch.setattr(points, "impl_root", lambda impl: tmp_path)
    table = points.load()
    assert (table.of_exercise("2.3"), table.of_exercise("2.1"), table.of_rung("thrash")) == \
        (20, 10, 0)
    (tmp_path / "grading.toml").write_text('[exercise]\n"2.3" = -1\n')
    with pytest.raises(ValueError, match="whole numbers"):
        points.load()


def test_grade_json_has_total_max_and_points_per_item(
        stage2: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"total", "max", "exercises"}
    table = points.load()
    _, exercises = fresh(stage(2))
    items = {e["item"]: e for e in data["exercises"]}
    assert data["max"] == sum(table.of_exercise(e.number) for e in exercises) + \
        table.of_rung("thrash")
    assert data["total"] == table.of_exercise("2.1")  # the cell waits for the whole stage
    done = next(e for e in data["exercises"] if e["item"].startswith("exercise 2.1"))
    assert (done["status"], done["points"], done["kind"]) == ("DONE", done["max"], "exercise")
    cell = items["pitfall thrash[2] — §12.2 thrash"]
    assert (cell["status"], cell["points"], cell["max"]) == ("PITFALL", 0, table.of_rung("thrash"))


def test_a_ladder_cell_scores_once_every_exercise_of_its_stage_is_done() -> None:
    """A cell on stubs shows the reference chained below them, not the learner's work."""
    _, exercises = fresh(stage(2))
    cell = grade.Row(2, "pitfall thrash[2] — §12.2 thrash", grade.PITFALL, "17 %")
    done = [grade.Row(2, f"exercise {e.number} {e.function}()", grade.DONE, "")
            for e in exercises]
    table = points.load()
    assert points.score([*done, cell])[-1].points == table.of_rung("thrash")
    todo = [*done[:-1], grade.Row(2, done[-1].item, grade.TODO, "")]
    assert points.score([*todo, cell])[-1].points == 0
    other = grade.Row(3, "pitfall thrash[3] — §12.2 thrash", grade.HOLDS, "2 %")
    assert points.score([*done, other])[-1].points == 0  # stage 3's exercises are not done


def test_grade_prints_the_score(stage2: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "2"]) == 0
    table = points.load()
    assert f"Score: {table.of_exercise('2.1')} of" in capsys.readouterr().out


def test_the_junit_report_reads_back_with_one_case_per_exercise(
        stage2: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "grade.xml"
    assert main(["grade", "2", "--junit", str(report)]) == 0
    xml = JUnitXml.fromfile(str(report))
    suites = list(xml)
    assert [s.name for s in suites] == ["pytest"]
    cases = list(suites[0])
    _, exercises = fresh(stage(2))
    by_name = {c.name: c for c in cases}
    names = [c.name for c in cases if c.classname == "s2_truncate.exercise"]
    assert sorted(n.split()[1] for n in names) == sorted(e.number for e in exercises)
    assert len(names) == len(set(names))
    table = points.load()
    for case in cases:
        props = {p.name: p.value for p in case.child(Properties).iterchildren(Property)}
        number = case.name.split()[1]
        worth = table.of_exercise(number) if case.name.startswith("exercise") else \
            table.of_rung("thrash")
        assert int(props["max_points"]) == worth
        earned = props["status"] in ("DONE", "PITFALL", "HOLDS") and case.name.startswith(
            "exercise")  # stage 2 is not finished: its ladder cell waits
        assert int(props["points"]) == (worth if earned else 0)
        assert any(isinstance(r, Failure) for r in case.result) == (not earned)
    failing = by_name[next(n for n in names if n.startswith("exercise 2.3"))]
    assert "assert 4 == 2" in failing.result[0].message
    assert suites[0].tests == len(cases) and suites[0].failures == sum(
        1 for c in cases if c.result)


def test_the_classroom_workflow_is_the_generated_one_and_parses() -> None:
    table = points.load()
    text = WORKFLOW.read_text(encoding="utf-8")
    assert text == classroom.workflow(STAGES, table), \
        "regenerate: ctxlab workbook classroom > docs/classroom/classroom.yml"
    flow = yaml.safe_load(text)
    assert set(flow["on"]) >= {"push", "workflow_dispatch"}
    steps = flow["jobs"]["run-autograding-tests"]["steps"]
    graders = [s for s in steps if s.get("uses", "").startswith(
        "classroom-resources/autograding-command-grader")]
    reporter = steps[-1]
    assert reporter["uses"].startswith("classroom-resources/autograding-grading-reporter")
    assert reporter["with"]["runners"].split(",") == [s["id"] for s in graders]
    assert set(reporter["env"]) == {f"{s['id'].upper()}_RESULTS" for s in graders}
    for s in STAGES:
        _, exercises = fresh(s)
        for exercise in exercises:
            step = next(g for g in graders if g["id"] == f"exercise-{exercise.number}".replace(
                ".", "-"))
            assert step["with"]["max-score"] == table.of_exercise(exercise.number)
            assert f"--stage {s.number} --exercise {exercise.number} tests/s{s.number}" in \
                step["with"]["command"]
        cells = [(r, k) for r in LADDER for k, v in r.cells.items()
                 if v != NA and Cell.parse(k).stage == s.number]
        ladder = next(g for g in graders if g["id"] == f"ladder-{s.number}")
        assert ladder["with"]["command"].endswith(f"--stage {s.number} tests/s{s.number} "
                                                  "tests/ladder")  # the stage done, or 0
        assert ladder["with"]["max-score"] == sum(table.of_rung(r.id) for r, _ in cells)
    assert sum(g["with"]["max-score"] for g in graders) == sum(
        table.of_exercise(e.number) for s in STAGES for e in fresh(s)[1]) + sum(
        table.of_rung(r.id) for r in LADDER for v in r.cells.values() if v != NA)


def test_a_classroom_step_passes_on_the_reference_and_selects_one_exercise() -> None:
    step = classroom.steps([stage(2)], points.load())
    command = next(s["command"] for s in step if s["id"] == "exercise-2-4")
    argv = str(command).split()
    env = dict(os.environ, CTXLAB_STAGES_ROOT=str(impl_root("solutions")),
               PYTEST_ADDOPTS="-p no:cacheprovider")
    assert argv[:3] == ["python", "-m", "pytest"]
    done = subprocess.run([sys.executable, *argv[1:]], cwd=repo_root(), env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-1500:]
    ran = sum(1 for line in done.stdout.splitlines() if "passed" in line)
    assert ran == 1 and "deselected" in done.stdout
