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


def test_truncation_makes_the_agent_repeat_itself_on_the_long_task() -> None:
    result = run(2, "long-task", model="claude-haiku-4-5")
    # Near a full window the model may miss a fact in view and fail the check (§4), and on
    # this seed the API rejects stage 2's last request: it cut by its chars/4 estimate, which
    # runs under the API's count (rung overflow's evidence, §9.5). The repeats are the lesson.
    assert result.summary.turns > 10
    calls = []
    for ask, answer in zip(result.messages[1::2], result.messages[2::2], strict=False):
        outputs = {b["tool_use_id"]: b["content"] for b in answer["content"]
                   if b["type"] == "tool_result"}
        calls += [(b["name"], b["input"], str(outputs.get(b["id"])))
                  for b in ask["content"] if b["type"] == "tool_use"]
    report = thrash_report(calls)
    assert report.duplicate_rate > 0.0
