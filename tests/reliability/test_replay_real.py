"""The five real Claude Code logs in ``../shared/transcripts/`` (real-transcripts §2, §5):
each imports to a valid history and replays through every built stage from 2 on with no
API-rule violation. Skipped when that folder is absent (the logs are never copied here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from s2_truncate import assert_messages_valid

from ctxlab.cli import main
from ctxlab.replay import load_transcript, replay_file
from ctxlab.workbook.layout import STAGES, impl_root

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "transcripts"
LOGS = sorted(REAL.glob("*.jsonl")) if REAL.is_dir() else []
BUILT = [s.number for s in STAGES
         if s.number >= 2 and (impl_root("solutions") / s.package).exists()]

pytestmark = pytest.mark.skipif(not LOGS, reason=f"no real session logs in {REAL}")


def log(prefix: str) -> Path:
    return next(p for p in LOGS if p.name.startswith(prefix))


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem[:40])
def test_every_real_log_imports_to_a_valid_history(path: Path) -> None:
    transcript = load_transcript(path)
    assert_messages_valid(transcript.messages)
    assert transcript.report.broken_lines == []
    assert transcript.report.usage_records > 0


@pytest.mark.parametrize("number", BUILT)
@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem[:40])
def test_every_real_log_replays_without_a_violation(path: Path, number: int) -> None:
    report = replay_file(path, number, model="claude-haiku-4-5", window=40_000,
                         options={"per_result": 5_000} if number >= 3 else None)
    assert report.violations == [] and report.checks >= len(report.points) > 0


def test_the_converted_logs_match_the_research_notes() -> None:
    """Counts from real-transcripts §5 (after removing re-logged copies)."""
    general = load_transcript(log("session-share__general"))
    uses = [b for m in general.messages for b in m["content"] if b["type"] == "tool_use"]
    thinking = [b for m in general.messages for b in m["content"] if b["type"] == "thinking"]
    assert (len(uses), len(thinking)) == (65, 49)
    assert general.report.comment_lines == 2 and general.report.duplicates_dropped > 100
    m_claude = load_transcript(log("m-claude"))
    assert m_claude.report.synthetic_results == ["toolu_018krVb9oqn5TENJ2TdUARUC"]
    parallel = load_transcript(log("spotter__4d5611e5__agent-a2898e3"))
    assert max(sum(b["type"] == "tool_use" for b in m["content"])
               for m in parallel.messages) == 9  # the 9-way call, interleaved, stays one turn


@pytest.mark.parametrize(("number", "layer"), [(2, "truncate"), (4, "summary")])
@pytest.mark.checklist("B.33", partly="real logs at 40K: stage 2 and 4 only")
def test_a_smaller_window_makes_the_layers_act_on_a_real_log(number: int, layer: str) -> None:
    if number not in BUILT:
        pytest.skip(f"stage {number} is not built yet")
    report = replay_file(log("session-share__general"), number, model="claude-haiku-4-5",
                         window=40_000)
    assert report.layers()[layer].triggers > 0 and report.violations == []
    assert report.carry and report.points[-1].tokens < report.points[-1].baseline


def test_ctxlab_replay_on_the_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(REAL), "--stage", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["replays"]) == len(LOGS) and report["failed"] == []
    assert all(r["violations"] == 0 for r in report["replays"])
