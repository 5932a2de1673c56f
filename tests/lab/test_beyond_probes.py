"""Probes from ground truth, their scores, and the summary comparison (§12.4–§12.5)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from test_brain_plan import Chat
from widthcheck import WIDTHS, assert_readable, recording, rendered

from ctxlab import use
from ctxlab.beyond.probes import Probe, ground_truth, make_probes, parse_answers, score
from ctxlab.beyond.summaries import compare_summaries
from ctxlab.cli import main
from ctxlab.scenarios import load
from ctxlab.workbook.router import FINDER


@pytest.fixture(scope="module", autouse=True)
def reference() -> Iterator[None]:
    before = FINDER.selection
    use("solutions")
    yield
    use(before.impl, before.stage, before.chain)


def done_constraint_chat() -> Chat:
    chat = Chat(load("constraint"))
    chat.run_until("re-run-checks")
    return chat


def test_ground_truth_is_what_the_history_established() -> None:
    chat = done_constraint_chat()
    scenario = chat.scenario
    truth = ground_truth(scenario, chat.messages)
    assert sorted(truth.taken) == list(range(len(scenario.steps) - 1))
    assert truth.taken[scenario.index("raise-timeout")] == scenario.steps[
        scenario.index("raise-timeout")].comply
    assert truth.facts == {scenario.marker(f) for f in
                           ("failing", "uses-shared", "slow-api", "shared-value")}
    assert truth.rules == (scenario.constraints[0].text,)


def test_every_probe_kind_is_generated_with_its_expected_items() -> None:
    chat = done_constraint_chat()
    scenario = chat.scenario
    probes = make_probes(scenario, ground_truth(scenario, chat.messages))
    kinds = [p.kind for p in probes]
    assert kinds == ["fact"] * 4 + ["decision", "forbidden", "current"]
    decision = probes[4]
    assert "`edit_file report_job.py`" in decision.question
    assert scenario.constraints[0].text in decision.expected
    assert probes[-1].expected == ("give the report job a timeout long enough for the "
                                   "warehouse API", "run the checks again")


def test_scores_count_expected_items_and_read_the_current_step_by_position() -> None:
    fact = Probe("fact", "?", ("A = 1", "B = 2"))
    assert score(fact, "`x` showed: A = 1 | B = 2") == 1.0
    assert score(fact, "A = 1") == 0.5
    assert score(fact, "not in view") == 0.0
    current = Probe("current", "?", ("go through log shard 1", "go through log shard 2"))
    assert score(current, "Last completed: go through log shard 1. Next: go through log "
                          "shard 2.") == 1.0
    # shard 16 is not shard 1, and the expected last step named as the *next* one is wrong
    assert score(current, "Last completed: go through log shard 16. Next: go through log "
                          "shard 17.") == 0.0
    assert score(current, "Last completed: go through log shard 0. Next: go through log "
                          "shard 1.") == 0.0
    assert parse_answers("1. a\n3. c", 3) == ["a", "", "c"]


@pytest.fixture(scope="module")
def constraint_report(reference: None) -> dict[str, Any]:
    return compare_summaries("constraint")


def _row(report: dict[str, Any], variant: str) -> dict[str, Any]:
    return next(r for r in report["variants"] if r["variant"] == variant)


def test_the_uncompacted_control_scores_full_marks(constraint_report: dict[str, Any]) -> None:
    full = _row(constraint_report, "full")
    assert full["score"] == 1.0
    assert all(v == 1.0 for v in full["by_kind"].values())


@pytest.mark.checklist("B.28")
def test_free_form_loses_the_rule_and_facts_a_template_keeps(
        constraint_report: dict[str, Any]) -> None:
    free, structured = _row(constraint_report, "free-form"), _row(constraint_report, "structured")
    assert free["by_kind"]["forbidden"] == 0.0  # governance decay (§12.3)
    assert free["by_kind"]["fact"] < structured["by_kind"]["fact"]
    assert free["score"] < structured["score"]
    for row in (free, structured, _row(constraint_report, "stage-5")):
        assert row["context_tokens"] < constraint_report["history_tokens"]
    assert _row(constraint_report, "stage-5")["by_kind"]["forbidden"] == 1.0


def test_server_compaction_needs_the_minimum_trigger(reference: None) -> None:
    """A history under the API's 50,000-token minimum trigger (R32) is not probed: the report
    says why instead of scoring it (the constraint task three steps in: about 10K tokens)."""
    report = compare_summaries("constraint", after=load("constraint").steps[2].id)
    server = _row(report, "server-compaction")
    assert report["history_tokens"] < 50_000
    assert server["score"] is None and "50,000" in server["note"]


def test_server_compaction_is_probed_when_the_history_is_long_enough(reference: None) -> None:
    report = compare_summaries("long-task", after="shard-07",
                               variants=("full", "free-form", "server-compaction"))
    server = _row(report, "server-compaction")
    assert report["history_tokens"] >= 50_000
    assert server["context_tokens"] < 2_000  # the compaction block is all that is left
    assert server["score"] == 1.0  # the API's default summary keeps every fact here
    assert _row(report, "free-form")["by_kind"]["fact"] < 1.0


def test_probe_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "--scenario", "constraint", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {"scenario", "after", "window", "history_tokens", "probes", "variants"} <= set(report)
    assert [r["variant"] for r in report["variants"]][:3] == ["full", "free-form", "structured"]
    assert main(["probe", "--scenario", "constraint", "--after", "nope"]) == 2


@pytest.mark.parametrize("width", WIDTHS)
def test_the_probe_table_reads_at_any_width(constraint_report: dict[str, Any],
                                            width: int) -> None:
    from ctxlab.commands.probe_cmd import probe_table
    from ctxlab.view import fitted

    view = fitted(recording(width), [lambda: probe_table(constraint_report),
                                     lambda: probe_table(constraint_report, True)])
    text = rendered(width, view)
    assert_readable(text, width, [row["variant"] for row in constraint_report["variants"]]
                    + [f"{row['context_tokens']:,}" for row in constraint_report["variants"]
                       if row["context_tokens"] is not None])
