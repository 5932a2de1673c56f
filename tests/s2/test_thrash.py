"""Exercise 2.5 — the thrash metric (guide §12.2)."""

from __future__ import annotations

import pytest
from s2_truncate import thrash_report

from ctxlab.runner import run

pytestmark = pytest.mark.exercise("2.5")


def test_no_calls() -> None:
    report = thrash_report([])
    assert (report.duplicate_rate, report.longest_run) == (0.0, 0)


@pytest.mark.checklist("B.30")
def test_repeats_with_unchanged_results_form_a_run() -> None:
    calls = [("read_file", {"path": "a"}, "A"), ("run_command", {"command": "ls"}, "x"),
             ("read_file", {"path": "a"}, "A"), ("read_file", {"path": "a"}, "A")]
    report = thrash_report(calls)
    assert report.duplicate_rate == pytest.approx(2 / 4)
    assert report.longest_run == 3
    assert report.pathological


@pytest.mark.checklist("B.30")
def test_a_changed_result_restarts_the_run() -> None:
    calls = [("run_command", {"command": "pytest"}, "1 failed"),
             ("run_command", {"command": "pytest"}, "1 failed"),
             ("run_command", {"command": "pytest"}, "3 passed")]
    report = thrash_report(calls)
    assert report.longest_run == 2
    assert not report.pathological


def test_argument_order_does_not_matter() -> None:
    calls = [("edit_file", {"path": "a", "old": "x", "new": "y"}, "ok"),
             ("edit_file", {"new": "y", "old": "x", "path": "a"}, "ok")]
    assert thrash_report(calls).duplicate_rate == pytest.approx(0.5)


def _calls(messages: list[dict]) -> list[tuple[str, str, dict, str]]:
    """(id, name, input, output) of every tool call in ``messages``, in order."""
    outputs = {b["tool_use_id"]: str(b["content"]) for m in messages if m["role"] == "user"
               and isinstance(m["content"], list) for b in m["content"]
               if b["type"] == "tool_result"}
    return [(b["id"], b["name"], b["input"], outputs.get(b["id"], ""))
            for m in messages if m["role"] == "assistant" for b in m["content"]
            if b["type"] == "tool_use"]


def test_truncation_makes_the_agent_repeat_itself_on_the_long_task() -> None:
    """§12.2 / §3.2: what truncation drops, the agent asks for again, and gets the same answer.

    The repeats counted are the mechanism's own: calls still in the final history whose twin
    (same tool, same input, same output) is a call the truncation removed from it. Re-reads of
    a result still in view (a habit of real sessions) do not count. Whether the run's last
    request fits the window is stage 2's chars/4 headroom (§9.5), not this lesson.
    """
    result = run(2, "long-task", model="claude-haiku-4-5")
    assert result.summary.compactions_per_layer.get("truncate", 0) >= 1
    kept = _calls(result.messages)
    kept_ids = {call[0] for call in kept}
    dropped = [call for call in _calls(result.original) if call[0] not in kept_ids]
    assert dropped, "the truncation removed no tool call"
    repeats = [call for call in kept
               if any((d[1], d[2], d[3]) == (call[1], call[2], call[3]) for d in dropped)]
    assert repeats, "no call the truncation removed was made again"
    report = thrash_report([(name, args, out) for _, name, args, out in _calls(result.original)])
    assert report.duplicate_rate > 0.0
