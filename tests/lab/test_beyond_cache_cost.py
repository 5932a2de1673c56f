"""The cache cost model: arithmetic, decisions, and agreement with the simulator (§6.5–§6.7)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import pytest

from ctxlab import models, use
from ctxlab.beyond.cache_cost import (
    Bill,
    Situation,
    compact_now,
    miss_vs_hit,
    next_request,
    plan,
)
from ctxlab.beyond.cold_cache import cold_cache_check
from ctxlab.beyond.cost_report import situation_at
from ctxlab.cli import main
from ctxlab.workbook.router import FINDER

HAIKU = "claude-haiku-4-5"
SIT = Situation(static_tokens=1_000, history_tokens=100_000, growth_per_turn=5_000,
                output_per_turn=100, kept_tokens=20_000, horizon=12)


@pytest.fixture(scope="module", autouse=True)
def reference() -> Iterator[None]:
    before = FINDER.selection
    use("solutions")
    yield
    use(before.impl, before.stage, before.chain)


def test_the_next_request_reads_what_is_still_cached() -> None:
    warm = next_request(1_000, 9_000, 10, 12_000, same_prefix=True)
    assert (warm.read, warm.write_5m, warm.write_1h) == (10_000, 2_000, 0)
    history_cold = next_request(1_000, 9_000, 6 * 60, 12_000, same_prefix=True)
    assert (history_cold.read, history_cold.write_5m) == (1_000, 11_000)
    all_cold = next_request(1_000, 9_000, 61 * 60, 12_000, same_prefix=True)
    assert (all_cold.read, all_cold.write_1h, all_cold.write_5m) == (0, 1_000, 11_000)
    compacted = next_request(1_000, 9_000, 10, 4_000, same_prefix=False)
    assert (compacted.read, compacted.write_5m) == (1_000, 3_000)


def test_a_rewrite_costs_twelve_and_a_half_reads() -> None:
    hit = miss_vs_hit(200_000, HAIKU)
    assert hit["rewrite_over_read"] == pytest.approx(12.5)  # 1.25x / 0.1x (API notes §1.7)
    assert hit["read_usd"] == pytest.approx(0.02)
    assert Bill(write_5m=200_000).usd(models.get(HAIKU)) == pytest.approx(0.25)


def test_compaction_pays_back_only_over_enough_turns() -> None:
    short = plan(dataclasses.replace(SIT, horizon=1), HAIKU)
    assert short.best is None  # one turn left: the rewrite is never paid back
    assert short.never < short.totals[0]
    long = plan(SIT, HAIKU)
    assert long.best is not None and long.totals[long.best] < long.never


def test_a_pause_past_the_ttl_makes_that_turn_the_cheapest_time_to_compact() -> None:
    paused = plan(dataclasses.replace(SIT, pauses=((4, 3_660.0),)), HAIKU)
    assert paused.best == 4
    warm = plan(SIT, HAIKU)
    extra_warm = warm.totals[4] - warm.never
    extra_paused = paused.totals[4] - paused.never
    assert extra_paused < extra_warm


def test_a_hard_limit_rules_out_never_compacting() -> None:
    limited = plan(dataclasses.replace(SIT, limit_tokens=140_000), HAIKU)
    assert limited.never is None
    assert limited.totals[-1] is None  # too late: the limit was passed before that turn
    assert limited.best is not None and limited.totals[limited.best] is not None
    assert limited.to_dict()["best_usd"] == limited.totals[limited.best]


def test_the_model_predicts_the_simulator_s_bill(reference: None) -> None:
    check = cold_cache_check("long-task", model="claude-sonnet-4-6")
    assert check["model_matches_simulator"]
    assert check["static_tokens"] > 0  # the static zone is cached for an hour on this model
    extra = check["extra_cost_of_clearing_usd"]
    assert extra["now"] > 0 and extra["4 min"] > 0  # warm: clearing forces a miss
    assert extra["6 min"] <= 0 and extra["61 min"] <= 0  # cold: the miss happens anyway
    cold = [r for r in check["requests"] if r["pause"] == "61 min"]
    assert all(r["actual"]["read"] == 0 and r["actual"]["write_1h"] > 0 for r in cold)


def test_on_a_short_history_an_old_entry_inside_the_lookback_still_hits(reference: None) -> None:
    # five turns: with parallel calls a sixth already carries the entry past the lookback
    check = cold_cache_check("long-task", turns=5, model="claude-sonnet-4-6")
    cleared_now = next(r for r in check["requests"] if r["pause"] == "now" and r["cleared"])
    assert cleared_now["actual"]["read"] > check["static_tokens"]  # the first request's entry
    assert not check["model_matches_simulator"]
    assert check["max_error_usd"] < 0.001


def test_with_one_turn_left_compact_only_when_the_cache_is_cold_anyway() -> None:
    last_turn = dataclasses.replace(SIT, horizon=1)
    assert not compact_now(last_turn, HAIKU)  # warm: the rewrite cannot pay back in one turn
    assert compact_now(dataclasses.replace(last_turn, idle_s=3_660.0), HAIKU)  # §6.7


def test_a_situation_is_measured_from_a_run(reference: None) -> None:
    sit, how = situation_at("long-task", turns=6, kind="summary")
    assert sit.static_tokens > 0 and sit.growth_per_turn > 0
    assert sit.summary_output_tokens > 0
    assert 0 < sit.kept_tokens < sit.history_tokens + sit.growth_per_turn
    assert how["kind"] == "summary"
    with pytest.raises(ValueError, match="unknown compaction kind"):
        situation_at(kind="fold")


@pytest.mark.shares_runs("capsys reads the command's report")
def test_cachecost_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cachecost", "--turns", "6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"situation", "measured", "miss_vs_hit", "plans", "check"} <= set(out)
    paused = out["plans"]["paused"]
    assert paused["best_turn"] == paused["pause_at"]
    assert len(out["plans"]["warm"]["totals_usd"]) == out["situation"]["horizon"]
    assert main(["cachecost", "--turns", "1"]) == 2
