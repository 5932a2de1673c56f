"""The retrieval model over every scenario's runs (guide §4; DESIGN §4 "Retrieval").

Stage 5 on every scenario, seeds 0–19: the agent never loops on one file (a re-read is made
again at most 3 times with nothing new in between), no request under 8K tokens misses a
literal fact (seeds 0–11: the literal curve's knee lies beyond, from RULER's table, and no
constant in the code says 8K), and ``isolate-write`` — which re-read ``orders.py`` 28 times
when a losing draw stuck to its pre-edit read — succeeds on every seed.
"""

from __future__ import annotations

import functools

import pytest

from ctxlab import runner, scenarios

SEEDS = range(20)
LITERAL_SEEDS = range(12)


@functools.cache
def _run(scenario: str, seed: int) -> runner.RunResult:
    return runner.run(5, scenario, seed=seed)


def _longest_same_read(result: runner.RunResult) -> int:
    """The most reads of one file in a row with no other tool call between (so no new tool
    result: the file reads the same), minus the first: the re-reads."""
    longest = run = 0
    last = None
    for record in result.records:
        for call in record.tool_calls:
            key = (call["name"], call["input_hash"])
            run = run + 1 if key == last and call["name"] == "read_file" else 0
            last = key
            longest = max(longest, run)
    return longest


@pytest.mark.parametrize("scenario", scenarios.names())
def test_no_loop_on_one_file(scenario: str) -> None:
    for seed in SEEDS:
        assert _longest_same_read(_run(scenario, seed)) <= 3, (scenario, seed)


@pytest.mark.parametrize("scenario", scenarios.names())
def test_no_literal_fact_is_missed_under_8k_tokens(scenario: str) -> None:
    for seed in LITERAL_SEEDS:
        summary = _run(scenario, seed).summary
        short = [m for m in summary.misses if m["kind"] == "literal" and m["tokens"] < 8192]
        assert short == [], (scenario, seed, short)


def test_isolate_write_succeeds_at_stage_5_on_every_seed() -> None:
    failed = [seed for seed in SEEDS if not _run("isolate-write", seed).summary.success]
    assert failed == []
