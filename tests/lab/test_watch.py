"""``ctxlab watch``: a save grades the stage again, with ``grade``'s own table (no sleeping:
the file events are injected)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from watchfiles import Change, PythonFilter

from ctxlab.cli import main
from ctxlab.commands import watch_cmd
from ctxlab.workbook import grade, progress
from ctxlab.workbook.layout import impl_root, stage


def record(exercise: str, outcome: str, *, stub: bool = False) -> dict[str, Any]:
    return {"nodeid": f"tests/s1/test_loop.py::test_{exercise.replace('.', '_')}",
            "exercise": exercise, "outcome": outcome, "not_implemented": stub,
            "message": "NotImplementedError" if stub else "", "pitfall": None}


@pytest.fixture
def graded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[int]:
    """Grading without the pytest subprocess: exercise 1.1 done, 1.2 still a stub (what
    passed is kept aside, not in the checkout's ``.ctxlab``)."""
    calls: list[int] = []
    monkeypatch.setattr(progress, "_state_file", lambda: tmp_path / "passed.json")

    def run_tests(s, chain="reference"):
        calls.append(s.number)
        return [record("1.1", "passed"), record("1.2", "failed", stub=True)]

    monkeypatch.setattr(grade, "run_tests", run_tests)
    return calls


def s1() -> dict[Path, Any]:
    return {(impl_root("stages") / "s1_loop").resolve(): stage(1)}


def saved(*paths: Path) -> set[tuple[Change, str]]:
    return {(Change.modified, str(p)) for p in paths}


def test_each_save_in_the_stage_grades_it_again_with_the_grade_table(
        graded: list[int], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "1"]) == 0
    table = capsys.readouterr().out
    assert "ctxlab hint 1.2" in table
    graded.clear()
    s1_file = impl_root("stages") / "s1_loop" / "loop.py"
    other = impl_root("stages") / "s3_offload" / "store.py"
    batches = [saved(s1_file), saved(other), saved(s1_file, s1_file.with_name("metrics.py"))]
    watch_cmd.watch_loop(s1(), batches, lambda s: watch_cmd.grade_cmd.run(
        watch_cmd.grade_args(s.number, "reference")), Console())
    out = capsys.readouterr().out
    assert graded == [1, 1, 1]  # at start, then once per batch that touched stage 1
    assert out.count(table) == 3  # the very table `ctxlab grade 1` prints, hint line included
    assert out.count("watching stages/s1_loop") == 3


def test_a_chinese_reader_gets_the_next_step_and_the_footer_in_chinese(
        graded: list[int], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("CTXLAB_LANG", "zh")
    watch_cmd.watch_loop(s1(), [], lambda s: watch_cmd.grade_cmd.run(
        watch_cmd.grade_args(s.number, "reference")), Console(width=200))
    out = capsys.readouterr().out
    assert "下一步：练习 1.2 " in out and "卡住了？运行 `ctxlab hint 1.2`" in out
    assert "正在监视 stages/s1_loop" in out and "watching" not in out


def test_only_watched_stages_are_touched() -> None:
    root = impl_root("stages")
    watched = {(root / s).resolve(): stage(n) for n, s in ((2, "s2_truncate"), (4, "s4_summarize"))}
    batch = saved(root / "s4_summarize" / "layer.py", root / "s2_truncate" / "cut.py",
                  root / "s3_offload" / "store.py", root.parent / "README.md")
    assert [s.number for s in watch_cmd.touched(batch, watched)] == [2, 4]


def test_the_command_watches_python_files_and_polls_on_request(
        graded: list[int], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    seen: dict[str, Any] = {}

    def fake_watch(*paths, watch_filter, force_polling):
        seen.update(paths=paths, watch_filter=watch_filter, force_polling=force_polling)
        yield saved(Path(paths[0]) / "loop.py")
        raise KeyboardInterrupt  # Ctrl-C ends the watch quietly

    monkeypatch.setattr(watch_cmd, "watch", fake_watch)
    assert main(["watch", "1", "--poll"]) == 0
    assert seen["paths"] == tuple(s1()) and seen["force_polling"] is True
    assert isinstance(seen["watch_filter"], PythonFilter)
    assert graded == [1, 1]
    assert "Workbook grade" in capsys.readouterr().out
    assert main(["watch", "9"]) == 2
