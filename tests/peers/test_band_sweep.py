"""Stage 5 against stage 4 on every scenario but the README's three, seeds 0–2 (the band).

Stage 5 clears in the band (§4.6) from half the window, stage 4 waits for its trigger. Averaged
over three seeds, stage 5 finishes every run; it sends no more tokens than stage 4 (within 3 %
where neither compacted anything beyond offload: the cache zones' framing is all that differs
then); and clearing early does not make the agent call tools again: its duplicate-call rate is
at most stage 4's plus 2 points. The dollars are not asserted: a batch is paid for by requests
the layer expects to come, and where the session ends right after it (ch8-worked-example,
parallel-flood) stage 5 pays more than stage 4 (the issue's report gives the figures).

These are the layers' mechanics, with context rot off. With it on (the default) the lines do
not all hold yet: on chinese-code, constraint and edit-mid-compaction stage 5 sends more tokens
than stage 4, and a volatile-context run fails (the band's issue stays open for it).
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


@pytest.mark.parametrize("scenario", [s for s in scenarios.names() if s not in HEADLINE])
def test_stage_5_against_stage_4_over_three_seeds(scenario: str) -> None:
    use("solutions")
    with switched(False):
        _compare(scenario)


def _compare(scenario: str) -> None:
    plan = scenarios.load(scenario)  # one context each: a part for a sub-agent runs inline (§11)
    inline = {"enabled": False} if any(step.delegate for step in plan.steps) else None
    four, five = ([run(stage, scenario, seed=seed, delegation=inline).summary.to_dict()
                   for seed in SEEDS] for stage in (4, 5))
    assert all(row["success"] for row in five)
    compacted = {layer for row in four + five for layer in row["compactions_per_layer"]}
    slack = 1.03 if compacted <= {"offload"} else 1.0
    assert _mean(five, "tokens_per_task") <= slack * _mean(four, "tokens_per_task")
    assert _mean(five, "duplicate_call_rate") <= _mean(four, "duplicate_call_rate") + 0.02
