"""``ctxlab workbook solve`` and ``reset`` on a workbook set aside: what they leave behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlab.cli import main
from ctxlab.workbook import hints, manage
from ctxlab.workbook.layout import stage


@pytest.fixture
def aside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Workbook stages, backups and hint levels in ``tmp_path``; the reference stays put."""
    monkeypatch.setenv("CTXLAB_STAGES_ROOT", str(tmp_path / "stages"))
    monkeypatch.setattr(manage, "repo_root", lambda: tmp_path)
    monkeypatch.setattr(hints, "_state_file", lambda: tmp_path / ".ctxlab" / "hints.json")
    return tmp_path / "stages"


def test_solve_copies_the_reference_without_the_solution_markers(
        aside: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["workbook", "solve", "2"]) == 0
    solved = {p.name: p.read_text(encoding="utf-8") for p in (aside / "s2_truncate").glob("*.py")}
    assert "cut.py" in solved and "def find_safe_cut" in solved["cut.py"]
    marked = [name for name, text in solved.items() if "### BEGIN SOLUTION" in text
              or "### END SOLUTION" in text]
    assert marked == []
    assert "NotImplementedError" not in solved["cut.py"]


def test_reset_starts_the_stage_hints_again(aside: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    for exercise in ("2.3", "2.3", "3.1"):
        assert main(["hint", exercise]) == 0
    assert main(["workbook", "reset", "2"]) == 0
    assert (aside / "s2_truncate" / "cut.py").read_text(encoding="utf-8") == \
        manage.fresh(stage(2))[0]["cut.py"]
    capsys.readouterr()
    assert main(["hint", "2.3"]) == 0
    assert "hint 1/3" in capsys.readouterr().out  # stage 2 starts again …
    assert main(["hint", "3.1"]) == 0
    assert "hint 2/3" in capsys.readouterr().out  # … stage 3 keeps its level
