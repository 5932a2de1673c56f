"""Stage 5 against stage 4 on every scenario but the README's three, seeds 0–2 (the band).

Stage 5 clears from the first request in batches that repay their rewrite and the chance of a
fetch again (§6.5, §7.4), stage 4 waits for its trigger. Averaged over three seeds, stage 5
finishes every run and sends no more tokens than stage 4 (within 3 % where neither compacted
anything beyond offload: the cache zones' framing is all that differs then), with context rot
on and off; with it off, clearing early does not make the agent call tools again either: its
duplicate-call rate is at most stage 4's plus 2 points.

Not asserted, as they do not all hold yet (the issue's report gives the figures): the dollars
(bugfix-small pays 1.10× stage 4's for the static zone's 1-hour write, which a five-request
run never recovers; chinese-code 1.11× with rot on, 1.02× off: a batch before the first edit
clears reads the agent then fetches again) and, with rot on, the duplicate-call rate
(stale-file: a fact missed in view at seed 1 is fetched again, 15.0 % against 12.5 %).
"""

from __future__ import annotations

import pytest

from ctxlab import scenarios, use
from ctxlab.brain.retrieval import switched
from ctxlab.runner import run

HEADLINE = {"long-task", "chat-heavy", "medium-results"}
SEEDS = (0, 1, 2)


def _mean(rows: list[dict], key: str) -> float:
    return sum(row[key] for row in rows) / len(rows)


@pytest.mark.parametrize("rot", [False, True], ids=["rot-off", "rot-on"])
@pytest.mark.parametrize("scenario", [s for s in scenarios.names() if s not in HEADLINE])
def test_stage_5_against_stage_4_over_three_seeds(scenario: str, rot: bool) -> None:
    use("solutions")
    with switched(rot):
        _compare(scenario, duplicates=not rot)


def _compare(scenario: str, *, duplicates: bool) -> None:
    plan = scenarios.load(scenario)  # one context each: a part for a sub-agent runs inline (§11)
    inline = {"enabled": False} if any(step.delegate for step in plan.steps) else None
    four, five = ([run(stage, scenario, seed=seed, delegation=inline).summary.to_dict()
                   for seed in SEEDS] for stage in (4, 5))
    assert all(row["success"] for row in five)
    compacted = {layer for row in four + five for layer in row["compactions_per_layer"]}
    slack = 1.03 if compacted <= {"offload"} else 1.0
    assert _mean(five, "tokens_per_task") <= slack * _mean(four, "tokens_per_task")
    if duplicates:
        assert _mean(five, "duplicate_call_rate") <= _mean(four, "duplicate_call_rate") + 0.02
