"""Exercises 3.2 and 3.3 — the preview and the two-level budget (§7.4, §2.4, §6.10)."""

from __future__ import annotations

import pytest
from s3_offload import choose_offloads, make_preview

PATH = ".task_outputs/tool-results/toolu_x.txt"


@pytest.mark.exercise("3.2")
@pytest.mark.checklist("B.3")
def test_preview_keeps_head_and_tail_and_says_where_the_rest_is() -> None:
    content = "H" * 3_000 + "M" * 10_000 + "T" * 3_000
    preview = make_preview(content, PATH, head=2_000, tail=1_000)
    assert preview.startswith("H" * 2_000) and preview.endswith("T" * 1_000)
    assert "M" not in preview
    assert PATH in preview and "16,000" in preview and "read_file" in preview
    assert len(preview) < 3_400


@pytest.mark.exercise("3.2")
def test_short_content_is_left_alone() -> None:
    assert make_preview("short", PATH) == "short"


@pytest.mark.exercise("3.3")
@pytest.mark.checklist("B.1")
def test_per_result_budget() -> None:
    results = [("a", "run_command", 60_000), ("b", "run_command", 10_000)]
    assert choose_offloads(results) == ["a"]


@pytest.mark.exercise("3.3")
@pytest.mark.checklist("B.2")
def test_per_message_budget_offloads_the_largest_first() -> None:
    results = [(f"r{n}", "run_command", 39_000 + n) for n in range(10)]  # 390K in one message
    chosen = choose_offloads(results)
    kept = sum(length for tool_id, _, length in results if tool_id not in chosen)
    assert kept <= 200_000
    assert chosen == [f"r{n}" for n in range(5, 10)]  # the five largest, in message order


@pytest.mark.exercise("3.3")
@pytest.mark.checklist("B.4")
def test_read_results_are_never_offloaded() -> None:
    results = [("big", "read_file", 500_000), ("log", "run_command", 60_000)]
    assert choose_offloads(results) == ["log"]
    assert choose_offloads(results, per_result=0, per_message=0) == ["log"]


@pytest.mark.exercise("3.3")
def test_the_naive_variants_exist_only_to_show_their_pitfall() -> None:
    """``per_message=None`` and ``exempt=frozenset()``: the ladder's naive cells (§2.4, §6.10)."""
    burst = [(f"r{n}", "run_command", 39_000) for n in range(10)]
    assert choose_offloads(burst, per_message=None) == []  # 390K in one message, all kept
    reads = [("big", "read_file", 500_000)]
    assert choose_offloads(reads, exempt=frozenset()) == ["big"]
