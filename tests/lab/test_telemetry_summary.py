"""Run summaries on hand-made records: the total bill and thrash signals (§12.1, §12.2, §12.6)."""

from __future__ import annotations

import json

import pytest

from ctxlab.telemetry import RunSummary, TurnRecord, retrigger_after_compaction, tool_call

READ_A = tool_call("read_file", {"path": "a.py"})
READ_B = tool_call("read_file", {"path": "b.py"})
GREP = tool_call("grep", {"pattern": "TODO"})


def rec(turn: int, *calls, kind="agent", inp=1000, read=0, out=100, thrash=False,
        compactions=(), error=None, occupancy=0.1) -> TurnRecord:
    return TurnRecord(turn=turn, kind=kind, model="claude-haiku-4-5", messages=turn * 2,
                      estimated_tokens=inp, reported_input_tokens=inp, input_tokens=inp - read,
                      cache_read_tokens=read, output_tokens=out, cost_usd=0.01,
                      occupancy=occupancy, tool_calls=list(calls), compactions=list(compactions),
                      thrash=thrash, error=error)


def event(layer: str, freed: int) -> dict:
    return {"layer": layer, "tokens_freed": freed, "trigger": "threshold"}


RUN = [
    rec(1, READ_A),
    rec(2, READ_B, GREP, read=800),
    rec(3, READ_A, thrash=True, read=900),  # same input, same result: a re-read
    rec(4, kind="summary", inp=3000, out=500, compactions=[event("summary", 5000)]),
    rec(4, READ_A, thrash=True, inp=400, read=0, occupancy=0.62),
    rec(5, READ_A, compactions=[event("snip", 800), event("microcompact", 300)], read=200),
    rec(6, error={"type": "overloaded_error", "message": "Overloaded"}, inp=0, out=0),
]


@pytest.fixture
def summary() -> RunSummary:
    return RunSummary.from_records(RUN, stage=2, scenario="chat-heavy", success=False,
                                   error={"type": "overloaded_error", "message": "Overloaded"})


@pytest.mark.checklist("B.29")
def test_tokens_per_task_counts_every_call_including_the_summary(summary) -> None:
    # inputs 1000+1000+1000+3000+400+1000+0, outputs 100*5 + 500
    assert summary.tokens_per_task == 7400 + 1000
    assert summary.cost_usd == pytest.approx(0.07)
    assert summary.summary_calls == 1
    assert summary.turns == 6  # agent turns 1..6; the summary call is not a turn
    assert summary.failures == 1


def test_cache_read_share_is_reads_over_total_input(summary) -> None:
    assert summary.cache_read_share == pytest.approx((800 + 900 + 200) / 7400)
    empty = RunSummary.from_records([], stage=1, scenario="x", success=True)
    assert empty.cache_read_share == 0.0 and empty.peak_occupancy == 0.0
    assert empty.duplicate_call_rate == 0.0 and empty.tokens_per_task == 0


def test_duplicate_call_rate_counts_calls_seen_earlier(summary) -> None:
    # six calls: read a, read b, grep, then read a three more times
    assert summary.duplicate_call_rate == pytest.approx(3 / 6)


def test_longest_unchanged_run_spans_other_calls_and_resets_on_change(summary) -> None:
    # read a (1), grep and read b in between, read a unchanged (2), unchanged (3), changed (1)
    assert summary.longest_unchanged_run == 3
    assert summary.thrash_pathological


@pytest.mark.checklist("B.30")
def test_repeats_with_changing_results_are_polling_not_thrash() -> None:
    poll = tool_call("bash", {"command": "status"})
    runs = [rec(t, poll) for t in range(1, 6)]
    s = RunSummary.from_records(runs, stage=1, scenario="poll", success=True)
    assert s.duplicate_call_rate == pytest.approx(4 / 5)
    assert s.longest_unchanged_run == 0
    assert not s.thrash_pathological


@pytest.mark.checklist("B.31", "B.32")
def test_compactions_per_layer_freed_tokens_and_retrigger(summary) -> None:
    assert summary.compactions_per_layer == {"summary": 1, "snip": 1, "microcompact": 1}
    assert summary.tokens_freed_per_layer == {"summary": 5000, "snip": 800, "microcompact": 300}
    # turn 5's pass (two layers, one pipeline run) follows turn 4's summary
    assert summary.retrigger_after_compaction == 1
    assert summary.peak_occupancy == 0.62


@pytest.mark.checklist("B.32")
def test_layers_on_the_same_turn_are_not_a_retrigger() -> None:
    runs = [rec(1), rec(2, compactions=[event("offload", 10), event("snip", 20)]), rec(3),
            rec(4, compactions=[event("snip", 5)])]
    s = RunSummary.from_records(runs, stage=5, scenario="x", success=True)
    assert s.retrigger_after_compaction == 0


def test_to_dict_is_flat_json_and_round_trips(summary) -> None:
    data = json.loads(json.dumps(summary.to_dict()))
    for key in ("stage", "scenario", "success", "error", "turns", "tokens_per_task",
                "cache_read_share", "cost_usd", "duplicate_call_rate"):
        assert key in data
    assert data["stage"] == 2 and data["success"] is False
    assert data["error"]["type"] == "overloaded_error"
    assert data["thrash_pathological"] is True
    assert RunSummary.from_dict(data) == summary


@pytest.mark.checklist("B.32")
def test_offloading_results_as_they_arrive_is_not_a_retrigger() -> None:
    records = [rec(t, compactions=[event("offload", 900)]) for t in range(1, 6)]
    assert retrigger_after_compaction(records) == 0
    records.append(rec(6, compactions=[event("microcompact", 500)]))
    records.append(rec(7, compactions=[event("summary", 5000)]))
    assert retrigger_after_compaction(records) == 1


def test_consecutive_failures_is_the_longest_streak() -> None:
    from ctxlab.telemetry.summary import consecutive_failures

    bad = {"type": "overloaded_error", "message": "Overloaded"}
    records = [rec(1), rec(2, error=bad), rec(3, error=bad), rec(4), rec(5, error=bad)]
    assert consecutive_failures(records) == 2
    assert consecutive_failures([rec(1)]) == 0
