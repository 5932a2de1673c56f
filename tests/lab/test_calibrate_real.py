"""The simulated agent's defaults are what ``ctxlab calibrate`` measures on the real logs in
``../shared/transcripts/``; simulated runs exported as session logs measure close to them.
The real-log tests skip when that folder is absent (the logs are never copied here)."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from ctxlab.brain.habits import CALIBRATED, CALIBRATED_ON
from ctxlab.calibrate.report import calibrate
from ctxlab.report.compare import LARGE_WINDOW_MODEL
from ctxlab.runner import run

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "transcripts"
LOGS = sorted(REAL.glob("*.jsonl")) if REAL.is_dir() else []
needs_logs = pytest.mark.skipif(not LOGS, reason=f"no real session logs in {REAL}")
EXPORTED = ["long-task", "chat-heavy", "medium-results", "bugfix-small", "constraint",
            "chinese-code"]


@needs_logs
def test_the_brain_defaults_are_the_figures_calibrate_measures_on_the_real_logs() -> None:
    assert [p.name for p in LOGS] == sorted(CALIBRATED_ON)
    stats = calibrate([REAL]).stats
    assert {key: stats[key] for key in CALIBRATED} == CALIBRATED
    assert stats["sessions"] == 5


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Keep-everything runs of the six scenarios (on the window ``ctxlab compare`` gives the
    baseline, so none is cut short), exported as Claude Code session logs."""
    folder = tmp_path_factory.mktemp("exported")
    for name in EXPORTED:
        run(None, name, model=LARGE_WINDOW_MODEL, export_log=folder / f"{name}.jsonl")
    return folder


def test_exported_runs_read_back_with_the_runs_own_usage(exported: Path) -> None:
    result = calibrate([exported])
    assert result.stats["sessions"] == len(EXPORTED)
    assert all(f.habits is not None and f.habits.partial_usage == 0 for f in result.files)
    lengths = [n for f in result.files for n in f.habits.output_tokens]
    assert statistics.median(lengths) == result.stats["output_tokens_median"]


def test_exported_output_lengths_are_within_30_percent_of_the_real_median(
        exported: Path) -> None:
    stats = calibrate([exported]).stats
    assert stats["output_tokens_median"] == pytest.approx(
        CALIBRATED["output_tokens_median"], rel=0.30)


def test_exported_runs_note_at_the_calibrated_rate_to_within_one_result_each(
        exported: Path) -> None:
    """The notes are spread evenly over each session's results with items, so every session
    is at ``note_rate`` to within one result, measured by calibrate's own definition."""
    files = calibrate([exported]).files
    for f in files:
        assert abs(f.habits.noted - CALIBRATED["note_rate"] * f.habits.results_with_items) < 1
    assert sum(f.habits.results_with_items for f in files) >= 30
