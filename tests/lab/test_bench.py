"""``ctxlab bench`` (issue 9): its structure and arithmetic on tiny sizes, never its timings.

Whether the targets hold is the benchmark's own business (``ctxlab bench`` exits 1 when one is
missed); a unit test that asserted a duration would fail on a busy machine for no reason.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
from typing import Any

import pytest
from widthcheck import WIDTHS, assert_readable, recording

from ctxlab import cli
from ctxlab.bench import fit, history, report, runs, turns
from ctxlab.runner import load_stage
from ctxlab.sim import Simulator, make_client
from ctxlab.tools import definitions

TINY = (5_000, 8_000)


def test_exponent_recovers_a_power_law() -> None:
    sizes = [10_000, 50_000, 200_000, 1_000_000]
    assert fit.exponent(sizes, [3e-9 * s ** 0.5 for s in sizes]) == pytest.approx(0.5)
    assert fit.exponent(sizes, [2e-7 * s for s in sizes]) == pytest.approx(1.0)
    assert fit.exponent(sizes, [0.004] * 4) == pytest.approx(0.0, abs=1e-12)


def test_exponent_needs_two_distinct_sizes() -> None:
    assert fit.exponent([10_000], [0.1]) is None
    assert fit.exponent([10_000, 10_000], [0.1, 0.2]) is None


def test_history_is_deterministic_and_billed_as_the_simulator_bills_it() -> None:
    overhead = turns.overhead_tokens()
    first = history.build(20_000, overhead=overhead, seed=3)
    again = history.build(20_000, overhead=overhead, seed=3)
    assert first.messages == again.messages and first.tokens == again.tokens
    assert first.messages != history.build(20_000, overhead=overhead, seed=4).messages
    assert first.tokens + history.ROUND_TOKENS <= 20_000  # room for the measured round
    client = make_client(Simulator())
    counted = client.messages.count_tokens(model=turns.MODEL, system=turns.SYSTEM,
                                           tools=definitions(), messages=first.messages)
    assert counted.input_tokens == first.tokens


def test_rounds_are_valid_api_rounds_with_fresh_text() -> None:
    from s2_truncate import assert_messages_valid

    built = history.build(12_000, overhead=1_000)
    assistant, results, names = built.rounds.next()
    messages = built.messages + [assistant, {"role": "user", "content": results}]
    assert_messages_valid(messages)
    assert names == {results[0]["tool_use_id"]: "read_file"}
    texts = [b["content"] for m in messages for b in m["content"] if b["type"] == "tool_result"]
    assert len(set(texts)) == len(texts)


@pytest.mark.parametrize("size", [8_000, 50_000])
def test_one_size_is_measured_without_compaction(size: int) -> None:
    """At 50K stage 5's band would clear the old results at once (a batch repays); the
    bench's layer keeps every result, so the turns measure its no-compaction path."""
    point = turns.measure(load_stage(5), size, turns=2, overhead=turns.overhead_tokens(),
                          repeats=1)
    assert point["no_compaction"] and point["compactions"] == 0
    assert size * 0.8 < point["tokens"] <= size and point["messages"] % 2 == 1
    assert point["overhead_ratio"] == point["layer_s"] / point["full_tokenize_s"]
    for key in ("layer_s", "layer_after_request_s", "full_tokenize_s", "first_prepare_s",
                "request_s", "simulator_s"):
        assert point[key] > 0
    assert point["simulator_s"] <= point["request_s"]


def test_the_layer_window_only_grows_past_the_model_window_when_needed() -> None:
    from ctxlab import models

    real = models.get(turns.MODEL).context_window
    assert turns.BenchSession(None, turns.MODEL, [], [], None,  # type: ignore[arg-type]
                               window_floor=2 * 200_000).window == real
    assert turns.BenchSession(None, turns.MODEL, [], [], None,  # type: ignore[arg-type]
                               window_floor=2 * real).window == 2 * real


def _point(target: int, layer_s: float, tokenize_s: float = 0.1) -> dict:
    return {"target": target, "tokens": target - 500, "messages": target // 1000,
            "new_tokens": 2_000, "layer_s": layer_s, "layer_after_request_s": 2 * layer_s,
            "full_tokenize_s": tokenize_s,
            "first_prepare_s": 0.01, "request_s": 0.02, "simulator_s": 0.01, "compactions": 0,
            "no_compaction": True, "layer_window": 1_000_000,
            "overhead_ratio": layer_s / tokenize_s}


def test_report_keys_ratios_by_size_and_fits_the_exponent() -> None:
    points = [_point(s, 1e-4 * (s / 10_000) ** 0.1) for s in (10_000, 200_000, 1_000_000)]
    built = report.assemble(points, [], 100.0, model=turns.MODEL, turns=3)
    assert list(built["overhead_ratio"]) == ["10000", "200000", "1000000"]
    assert built["overhead_ratio"]["200000"] == pytest.approx(points[1]["overhead_ratio"],
                                                              rel=1e-3)
    expected = fit.exponent([p["tokens"] for p in points], [p["layer_s"] for p in points])
    assert built["exponent"] == pytest.approx(expected, rel=1e-3)
    assert built["ok"] and [t["met"] for t in built["targets"]] == [True] * 3 + [None] * 5
    json.dumps(built)  # a JSON document, nothing else


@pytest.mark.parametrize(("growth", "met"), [(0.0, True), (0.15, True), (0.25, False),
                                             (0.56, False), (1.0, False)])
def test_the_growth_target_is_a_flat_turn(growth: float, met: bool) -> None:
    points = [_point(s, 1e-4 * (s / 10_000) ** growth, tokenize_s=1.0)
              for s in (10_000, 50_000, 200_000, 1_000_000)]
    built = report.assemble(points, [], None, model=turns.MODEL, turns=1)
    assert built["exponents"]["layer_per_turn"] == pytest.approx(growth, abs=0.02)
    assert built["targets"][1]["limit"] == report.EXPONENT_LIMIT == 0.2
    assert built["targets"][1]["met"] is met and built["ok"] is met


@pytest.mark.parametrize(("batches", "ratio", "met"), [(3, 0.01, [True, True]),
                                                        (0, 0.01, [False, True]),
                                                        (3, 0.05, [True, False])])
def test_the_band_targets_ask_for_batches_and_a_cheap_turn(batches: int, ratio: float,
                                                           met: list[bool]) -> None:
    band = {"target": 200_000, "layer_s": ratio, "full_tokenize_s": 1.0,
            "overhead_ratio": ratio, "batches": batches, "count_calls": 0, "turns": 15}
    built = report.assemble([_point(10_000, 1e-4)], [], None, model=turns.MODEL, turns=1,
                            band=band)
    assert [t["met"] for t in built["targets"][6:]] == met and built["band"] == band
    assert built["ok"] is all(met)


def test_report_flags_missed_and_unmeasured_targets() -> None:
    slow = report.assemble([_point(10_000, 0.001), _point(200_000, 0.05)], [], None,
                           model=turns.MODEL, turns=1)
    assert not slow["ok"]
    assert [t["met"] for t in slow["targets"]] == [False, False, True] + [None] * 5
    small = report.assemble([_point(10_000, 0.001)], [], None, model=turns.MODEL, turns=1)
    assert small["ok"] and small["exponent"] is None
    assert [t["met"] for t in small["targets"]][:2] == [None, None]


@pytest.mark.parametrize(("growth", "met"), [(1.0, True), (1.09, True), (1.5, False),
                                             (2.0, False)])
def test_the_replay_target_is_linear_growth(growth: float, met: bool) -> None:
    sessions = [{"requests": n, "cpu_seconds": 1e-3 * n ** growth, "seconds": 1.0,
                 "events": 0, "violations": 0} for n in (250, 500, 1_000, 2_000)]
    replays = {"stage": 5, "sessions": sessions,
               "exponent": fit.exponent([250, 500, 1_000, 2_000],
                                        [r["cpu_seconds"] for r in sessions])}
    built = report.assemble([_point(10_000, 1e-4)], [], None, model=turns.MODEL, turns=1,
                            replays=replays)
    assert built["targets"][3]["limit"] == report.REPLAY_LIMIT == 1.1
    assert built["targets"][3]["met"] is met


@pytest.mark.parametrize(("seconds", "met"), [(2.9, True), (3.0, True), (3.5, False)])
def test_a_thousand_requests_replay_in_three_seconds(seconds: float, met: bool) -> None:
    sessions = [{"requests": n, "cpu_seconds": seconds * n / 1_000, "seconds": 1.0,
                 "events": 0, "violations": 0} for n in (250, 1_000)]
    replays = {"stage": 5, "sessions": sessions, "exponent": 1.0}
    built = report.assemble([_point(10_000, 1e-4)], [], None, model=turns.MODEL, turns=1,
                            replays=replays)
    assert built["targets"][4]["value"] == seconds and built["targets"][4]["met"] is met


def test_the_logs_are_replayed_at_stages_1_and_5(tmp_path) -> None:
    from ctxlab.bench.logs import log_replays
    from ctxlab.replay.synthetic import synthetic_log

    synthetic_log(tmp_path / "a.jsonl", 12, seed=0, result_words=200)
    measured = log_replays([tmp_path], repeats=1)
    assert [r["stage"] for r in measured["stages"]] == [1, 5]
    assert all(r["requests"] == 12 for r in measured["stages"]) and measured["logs"] == 1
    assert measured["ratio"] == pytest.approx(
        measured["stages"][1]["cpu_seconds"] / measured["stages"][0]["cpu_seconds"])
    built = report.assemble([_point(10_000, 1e-4)], [], None, model=turns.MODEL, turns=1,
                            logs=measured)
    assert built["targets"][5]["met"] is (measured["ratio"] <= 2.0)


def test_a_missing_logs_folder_is_a_clear_error(tmp_path, capsys) -> None:
    assert cli.main(["bench", "--logs", str(tmp_path / "none"), "--sizes", "5K,8K"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_replay_times_replays_every_length() -> None:
    from ctxlab.bench.replay import replay_times

    measured = replay_times((4, 8), repeats=1)
    assert [r["requests"] for r in measured["sessions"]] == [4, 8]
    assert all(r["violations"] == 0 for r in measured["sessions"])
    assert measured["exponent"] is not None


def test_report_rounds_to_four_significant_digits() -> None:
    assert report._round({"a": [math.pi, 2], "b": 123456.789}) == {"a": [3.142, 2],
                                                                    "b": 123500.0}


@pytest.mark.parametrize("width", WIDTHS)
def test_tables_render(width: int) -> None:
    points = [_point(s, 1e-4) for s in (10_000, 200_000, 1_000_000)]
    rows = [{"stage": 5, "scenario": "bugfix-small", "seconds": 1.5, "requests": 7,
             "turns": 7, "success": True}]
    console = recording(width)
    report.show(report.assemble(points, rows, 80.0, model=turns.MODEL, turns=2), console)
    text = console.export_text()
    assert "Whole runs (bugfix-small)" in text and "Targets" in text and "size^" in text
    assert_readable(text, width, ["999,500", "199,500", "1.50"])
    sessions = [{"requests": 1_000, "cpu_seconds": 2.4, "seconds": 2.5, "events": 3,
                 "violations": 0},
                {"requests": 500, "cpu_seconds": 1.1, "seconds": 1.2, "events": 1,
                 "violations": 0}]
    console = recording(width)
    report.show(report.assemble(points, [], None, model=turns.MODEL, turns=2, replays={
        "stage": 5, "sessions": sessions, "exponent": 1.06}), console)
    replayed = console.export_text()
    assert "a 1,000-request session replays in 2.50 s" in " ".join(replayed.split())
    assert_readable(replayed, width, ["1,000", "2.50"])


def test_a_whole_run_is_timed_per_stage() -> None:
    rows = runs.whole_runs([5], "bugfix-small")
    assert [r["stage"] for r in rows] == [5] and rows[0]["seconds"] > 0
    assert rows[0]["requests"] >= 1 and isinstance(rows[0]["success"], bool)


def test_peak_memory_is_reported_in_megabytes() -> None:
    peak = runs.peak_rss_mb()
    assert peak is None or 10 < peak < 100_000


def test_cli_json_has_ratios_per_size_and_the_exponent(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    status = cli.main(["bench", "--sizes", "5K,8K", "--turns", "1", "--stages", "none",
                       "--replays", "4,8", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == (0 if data["ok"] else 1)
    assert set(data["overhead_ratio"]) == {str(s) for s in TINY}
    assert isinstance(data["exponent"], float)
    assert [p["target"] for p in data["sizes"]] == list(TINY)
    assert all(p["tokens"] <= p["target"] and p["no_compaction"] for p in data["sizes"])
    assert data["runs"] == [] and data["setup"]["turns_per_size"] == 1
    assert [r["requests"] for r in data["replays"]["sessions"]] == [4, 8]
    assert data["targets"][3]["value"] == data["replays"]["exponent"]


@pytest.mark.parametrize(("text", "sizes"), [("10K,50k,200K,1M", [10_000, 50_000, 200_000,
                                                                     1_000_000]),
                                               ("5.5k,20_000", [5_500, 20_000])])
def test_sizes_are_parsed_with_suffixes(text: str, sizes: list[int]) -> None:
    from ctxlab.commands.bench_cmd import _sizes

    assert _sizes(text) == sizes


@pytest.mark.parametrize("argv", [["--sizes", "ten"], ["--sizes", "4K"], ["--stages", "7"],
                                  ["--scenario", "no-such-scenario"], ["--replays", "ten"],
                                  ["--replays", "500"], ["--replays", "1,8"]])
def test_bad_options_are_user_errors(argv: list[str], capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    try:
        status = cli.main(["bench", "--sizes", "5K", "--turns", "1", *argv])
    except SystemExit as exit_:  # argparse's own errors
        status = exit_.code
    assert status == 2


# The incremental accounting the benchmark relies on must not change what is computed.


def test_ascii_fast_path_counts_exactly_what_the_patterns_count() -> None:
    from s5_pipeline import estimate

    def by_patterns(text: str) -> dict[str, int]:
        found = {name: pattern.findall(text) for name, pattern in estimate.CLASSES}
        letters = sum(len(w) for w in found["words"])
        counted = len(found["cjk"]) + letters + len(found["digits"]) + len(found["spaces"])
        return {"cjk": len(found["cjk"]), "words": len(found["words"]),
                "digits": len(found["digits"]), "spaces": len(found["spaces"]),
                "other": len(text) - counted}

    rng = random.Random(9)
    alphabet = "".join(map(chr, range(128)))
    texts = [alphabet, "", "a", " a", "x1 y2\n\tz", history.source_text(rng, 300)]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(40))) for _ in range(500)]
    for text in texts:
        assert estimate.features(text) == by_patterns(text)
        assert list(estimate.features(text)) == list(by_patterns(text))  # same summing order


def test_estimate_sees_blocks_changed_in_place() -> None:
    from s5_pipeline import estimate_tokens

    history_ = [{"role": "user", "content": [{"type": "text", "text": "short"}]}]
    before = estimate_tokens(history_)
    history_[0]["content"][0]["text"] = "a much longer text than before " * 20
    grown = estimate_tokens(history_)
    assert grown > before
    history_[0]["content"].append({"type": "tool_use", "id": "t", "name": "read_file",
                                   "input": {"path": "a.py"}})
    with_tool = estimate_tokens(history_)
    history_[0]["content"][1]["input"]["path"] = "a/much/longer/path/than/before.py"
    assert grown < with_tool < estimate_tokens(history_)


def test_mark_newest_passes_unchanged_messages_on_without_copying() -> None:
    from s5_pipeline import mark_newest

    messages = [{"role": "user", "content": [{"type": "text", "text": "task"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "ok",
                                                   "cache_control": {"type": "ephemeral"}}]},
                {"role": "user", "content": [{"type": "text", "text": "next"}]}]
    marked = mark_newest(messages)
    assert marked[0] is messages[0]  # nothing to strip: shared
    assert "cache_control" not in marked[1]["content"][0]
    assert "cache_control" in messages[1]["content"][0]  # the input is not modified
    assert marked[2]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in messages[2]["content"][0]


def test_render_cache_keeps_positions_identical_after_an_in_place_edit() -> None:
    from ctxlab.sim import render
    from ctxlab.sim.schema import parse

    body = {"model": turns.MODEL, "max_tokens": 10, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "hello there"}]}]}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    req = parse(json.loads(json.dumps(body)), headers, count_only=False)
    first = render.render(req)
    req.messages[0]["content"][0]["text"] = "hello there, and a good deal more text"
    edited = render.render(req)
    body["messages"][0]["content"][0]["text"] = req.messages[0]["content"][0]["text"]
    fresh = render.render(parse(json.loads(json.dumps(body)), headers, count_only=False))
    assert edited == fresh and edited.total > first.total
    assert re.fullmatch(r"[0-9a-f]{64}", edited.positions[-1].key)


def test_the_band_acts_where_it_is_timed() -> None:
    """The band's turns run the path a long session runs: batches clear old results on a
    history at the band's lower edge, sized from each usage, counted by the API at most
    once."""
    from ctxlab.bench.band import band_turns
    from ctxlab.runner import load_stage

    point = band_turns(load_stage(5), 60_000, turns=3, overhead=turns.overhead_tokens(),
                       repeats=1)
    assert point["window"] == 120_000 and point["turns"] == 3
    assert point["batches"] > 0 and point["count_calls"] <= 1
    assert point["layer_s"] > 0 and point["full_tokenize_s"] > 0
    quick = point["without_fsync"]  # the same turns again, in a disposable folder
    assert quick["batches"] == point["batches"] and quick["layer_s"] > 0
    assert quick["overhead_ratio"] == pytest.approx(quick["layer_s"] / point["full_tokenize_s"])
    assert 0 <= point["fsync_share"] < 1


def test_the_band_is_timed_durable_then_without_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """The headline turns fsync as a user's run does; the second run, declared disposable,
    fsyncs nothing."""
    from ctxlab.bench import band

    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    fsyncs_per_run: list[int] = []
    original = band._turns

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        before = len(synced)
        result = original(*args, **kwargs)
        fsyncs_per_run.append(len(synced) - before)
        return result

    monkeypatch.setattr(band, "_turns", counted)
    band.band_turns(load_stage(5), 30_000, turns=2, overhead=turns.overhead_tokens(),
                    repeats=1)
    assert fsyncs_per_run[0] > 0 and fsyncs_per_run[1:] == [0]
