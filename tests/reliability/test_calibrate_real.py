"""The simulated agent's defaults are what ``ctxlab calibrate`` measures on the real logs in
``../shared/transcripts/``; simulated runs exported as session logs measure close to them.
The real-log tests skip when that folder is absent (the logs are never copied here)."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from ctxlab.brain import habits
from ctxlab.brain.habits import CALIBRATED, CALIBRATED_ON, noted
from ctxlab.calibrate.report import calibrate
from ctxlab.report.compare import LARGE_WINDOW_MODEL
from ctxlab.runner import run

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "transcripts"
LOGS = sorted(REAL.glob("*.jsonl")) if REAL.is_dir() else []
needs_logs = pytest.mark.skipif(not LOGS, reason=f"no real session logs in {REAL}")
README = Path(__file__).resolve().parents[2] / "README.md"
EXPORTED = ["long-task", "chat-heavy", "medium-results", "bugfix-small", "constraint",
            "chinese-code"]


@needs_logs
def test_the_brain_defaults_are_the_figures_calibrate_measures_on_the_real_logs() -> None:
    assert [p.name for p in LOGS] == sorted(CALIBRATED_ON)
    stats = calibrate([REAL]).stats
    assert {key: stats[key] for key in CALIBRATED} == CALIBRATED
    # 4 sessions: 3 main threads, and 2 sidechains of a session whose main thread is elsewhere
    assert (stats["sessions"], stats["parents"], stats["sidechains"]) == (4, 3, 2)


SEEDS = (1, 2, 3)
"""More sessions for the pooled note rate: so few results carry items (33 in the six runs of
seed 0) that one seed's rate moves by a whole note, 0.03, from seed to seed."""
SHORT = ["long-task", "bugfix-small", "constraint", "chinese-code"]
"""The scenarios run at ``SEEDS`` too: 29 of the 33 results with items, in 7 s of the 27."""


class Decisions:
    """The brain's note decisions, per session (``scenario:seed``): result index → noted."""

    def __init__(self) -> None:
        self.made: dict[str, dict[int, bool]] = {}

    def __call__(self, k: int, rate: float, seed: str) -> bool:
        decided = noted(k, rate, seed)
        self.made.setdefault(seed, {})[k] = decided
        return decided


@pytest.fixture(scope="module")
def decisions() -> Decisions:
    return Decisions()


def _export(folder: Path, runs: list[tuple[str, int]], decisions: Decisions) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(habits, "noted", decisions)
        for name, seed in runs:
            run(None, name, model=LARGE_WINDOW_MODEL, seed=seed,
                export_log=folder / f"{name}@{seed}.jsonl")
    return folder


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory, decisions: Decisions) -> Path:
    """Keep-everything runs of the six scenarios (on the window ``ctxlab compare`` gives the
    baseline, so none is cut short), exported as Claude Code session logs."""
    return _export(tmp_path_factory.mktemp("exported"), [(n, 0) for n in EXPORTED], decisions)


@pytest.fixture(scope="module")
def reseeded(tmp_path_factory: pytest.TempPathFactory, decisions: Decisions) -> Path:
    """The short scenarios again at ``SEEDS``: other sessions of the same agent."""
    return _export(tmp_path_factory.mktemp("reseeded"),
                   [(n, s) for s in SEEDS for n in SHORT], decisions)


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


def test_calibrate_counts_exactly_the_results_the_brain_decided_on(
        exported: Path, reseeded: Path, decisions: Decisions) -> None:
    """Same definition on both sides: in every session calibrate's results with items are the
    results the brain decided about, and its notes the ones the brain decided to write. The
    measured rate is then ``note_rate`` in expectation (``noted`` spreads the notes evenly from
    a random phase), and within one result of it in each session."""
    for f in calibrate([exported, reseeded]).files:
        name, _, seed = Path(f.file).stem.partition("@")
        made = decisions.made.get(f"{name}:{seed}", {})
        assert sorted(made) == list(range(f.habits.results_with_items)), f.file
        assert sum(made.values()) == f.habits.noted, f.file
        assert abs(f.habits.noted - CALIBRATED["note_rate"] * f.habits.results_with_items) < 1


def test_exported_runs_note_within_30_percent_of_the_real_rate_over_several_sessions(
        exported: Path, reseeded: Path) -> None:
    """Pooled over the six scenarios at seed 0 and the short ones at seeds 1-3 (120 results
    with items; one seed alone has 33, where a note more or less moves the rate by 30 %)."""
    pooled = calibrate([exported, reseeded])
    assert sum(f.habits.results_with_items for f in pooled.files) >= 100
    assert pooled.stats["note_rate"] == pytest.approx(CALIBRATED["note_rate"], rel=0.30)


def test_the_readme_quotes_these_figures(exported: Path, reseeded: Path) -> None:
    one, pooled = calibrate([exported]), calibrate([exported, reseeded])
    results = [f.habits for f in pooled.files]
    said = " ".join(README.read_text(encoding="utf-8").split())
    assert f"a median of {one.stats['output_tokens_median']:g} output tokens" in said
    assert f"a note rate of {pooled.stats['note_rate']:.3f} pooled" in said
    assert (f"({sum(h.noted for h in results)} of {sum(h.results_with_items for h in results)}"
            " results with items)") in said
    assert f"only {sum(f.habits.results_with_items for f in one.files)} such results" in said
