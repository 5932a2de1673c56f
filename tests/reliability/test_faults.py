"""The fault matrix of stages 4 and 5 (issue 8, item 2).

Every fault a summary call can meet — 429, 529, 500, a timeout, an empty reply, a tool call
instead of the summary, ``prompt is too long`` inside the summary call — once, and as an outage
that never ends. Each run must finish, or stop with a typed, explained error; the circuit
breaker must let exactly its limit of failed compactions reach the model and not one more; and
whatever left the context must be on disk, in a summary, or in the loss manifest with the layer
that removed it. The crash row of the matrix is ``test_resume.py``.

The client makes no SDK retries here (``max_retries=0``), so each attempt of the layer is one
request on the wire; one test keeps the SDK's own retries to show they multiply, not break, the
bound.
"""

from __future__ import annotations

import json

import pytest
from faultkit import FAULTS, TRANSIENT, Bench, compactor, offline_client, run
from rich.console import Console
from s4_summarize import MAX_PTL_RETRIES, CircuitBreaker
from s5_pipeline.thresholds import BLOCKING_LEFT

from ctxlab import models, runner
from ctxlab.loss import IN_CONTEXT, UNREPORTED
from ctxlab.runner import RunResult
from ctxlab.view import explain_error

LIMIT = CircuitBreaker().threshold  # failed compactions before the breaker opens
RETRIES = 2  # the Compactor's default: transient errors are tried 1 + 2 times
PER_COMPACTION = {**dict.fromkeys(TRANSIENT, 1 + RETRIES), "empty": 1, "tool call": 1,
                  "prompt too long": 1 + MAX_PTL_RETRIES}
"""The most summary requests one failed compaction may send, per fault."""
SCENARIO = {4: ("constraint", "ctxlab-sim-32k"), 5: ("constraint", "ctxlab-sim-32k")}
OUTAGE = {4: ("chat-heavy", "ctxlab-sim-32k"), 5: ("constraint", "ctxlab-sim-32k")}
"""Stage 4 has no blocking tier, so an outage needs turns small enough to leave it the room
for three failed compactions (``test_stage4_without_headroom...`` shows what happens else)."""
BLOCKING_SHARE = 1 - BLOCKING_LEFT / models.get(OUTAGE[5][1]).context_window  # §8.5's mark
LOSES_RULE = {(4, "prompt too long"), (4, "empty"), (4, "tool call")}
"""Runs that lose the turn-1 rule to a PTL retry. A summary that fails for its input (empty,
a tool call) lets stage 4's history grow past the summary's reserve (§8.1): the next summary
stops at the window, and making room for it drops the oldest rounds (§9.1)."""


@pytest.fixture(autouse=True)
def no_sdk_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "_client", offline_client(0))


def _run(stage: int, fault: str, count: int, **options: object) -> tuple[RunResult, Bench]:
    scenario, model = (SCENARIO if count == 1 else OUTAGE)[stage]
    bench = Bench(scenario).inject(fault, count)
    return run(bench, stage, model=model, **options), bench


def _explained(error: dict[str, str]) -> str:
    console = Console(record=True, width=120)
    console.print(explain_error(error["type"], error["message"]))
    return console.export_text()


def assert_nothing_unaccounted(result: RunResult) -> None:
    """Everything that left the context is on disk, in a summary, or has a reason."""
    assert result.loss is not None
    for item in result.loss.items:
        if item.status != IN_CONTEXT and item.kind != "file":
            assert item.why and item.why != UNREPORTED, item


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("stage", [4, 5])
def test_one_failed_summary_call_is_survived(stage: int, fault: str) -> None:
    result, bench = _run(stage, fault, 1)
    assert result.summary.error is None
    groups = bench.summary_groups()
    if (stage, fault) in LOSES_RULE:
        # The PTL retry dropped the oldest rounds unsummarized, the turn-1 rule with them: the
        # agent then breaks it (§9.1, §12.3). The manifest says so; stage 5 re-injects it.
        assert result.problems == ("config.py was changed, but the task must leave it as it "
                                   "was",)
        rule = [i for i in result.loss.of("user_message") if "config.py" in i.preview]
        assert [(i.status, i.where) for i in rule] == [("on disk", ".transcripts/session.jsonl")]
        assert "ptl-drop" in rule[0].why
        if fault != "prompt too long":  # the next summary had no room: cut off, then retried
            retried = groups[1]  # on shorter histories until one fits (§9.1)
            assert 2 <= len(retried) <= 1 + MAX_PTL_RETRIES
            assert all(w.status == 200 for w in retried)
            sizes = [len(json.dumps(w.body["messages"])) for w in retried]
            assert sizes == sorted(set(sizes), reverse=True)
    else:
        assert result.summary.success, result.problems
    first = [w.status for w in groups[0]]
    if fault in TRANSIENT or fault == "prompt too long":  # retried inside one compaction
        assert first[-1] == 200 and len(first) == 2
    else:  # structural: this compaction fails, a later one succeeds
        assert first == [200] and any(g[-1].status == 200 for g in groups[1:])
    assert not compactor(result).breaker.open
    if fault == "prompt too long":
        assert "ptl-drop" in result.summary.compactions_per_layer
    assert_nothing_unaccounted(result)
    if stage == 4:
        assert result.loss.lost() == []  # stage 4 archives whatever it removes


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("stage", [4, 5])
def test_an_outage_opens_the_breaker_after_exactly_its_limit(stage: int, fault: str) -> None:
    result, bench = _run(stage, fault, 10_000)
    assert result.summary.error is None
    if stage == 4:  # the fallback cut away the user's early request about svc-121, which no
        said = [b.get("text", "") for m in result.messages if m["role"] == "user"  # tool can
                for b in m["content"] if b.get("type") == "text"]  # fetch again: not done
        assert not any("svc-121" in text for text in said) and not result.summary.success
    else:
        assert result.summary.success, result.problems
    groups = bench.summary_groups()
    assert compactor(result).breaker.failures == LIMIT  # three failed compactions, then none
    # each reached the model, but one that found nothing to fold yet (too few rounds), which
    # fails without a call; after the third, no summary request is sent
    assert 0 < len(groups) <= LIMIT
    assert all(len(g) <= PER_COMPACTION[fault] for g in groups)
    if fault in TRANSIENT:
        assert all(len(g) == PER_COMPACTION[fault] for g in groups)
    assert all(w.status != 200 or fault in ("empty", "tool call") for g in groups for w in g)
    assert compactor(result).breaker.open
    fallback = "truncate" if stage == 4 else "blocking"  # the no-model rungs
    if stage == 4 or result.summary.peak_occupancy > BLOCKING_SHARE:
        assert result.summary.compactions_per_layer.get(fallback, 0) > 0
    # else stage 5's microcompact kept every request under the blocking mark: nothing to cut
    assert_nothing_unaccounted(result)
    if stage == 4:
        assert result.loss.lost() == []  # the fallback archives what it cuts


def test_sdk_retries_multiply_the_bound_but_do_not_break_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "_client", offline_client(2))
    result, bench = _run(5, "429", 10_000)
    assert result.summary.success
    groups = bench.summary_groups()
    assert compactor(result).breaker.failures == LIMIT and 0 < len(groups) <= LIMIT
    assert all(len(g) == 3 * (1 + RETRIES) for g in groups)


def test_stage4_without_headroom_stops_with_a_typed_explained_error() -> None:
    """Stage 4 has no blocking tier: when each turn grows the history by more than the room
    left below the window, an outage ends the run before the breaker's third failure — with
    the API's own error, explained, not a crash. Stage 5's blocking tier is the fix (§8.5)."""
    bench = Bench("medium-results").inject("529", 10_000)
    result = run(bench, 4, model="ctxlab-sim-32k")  # results of ~4K tokens, 11K of room
    assert not result.summary.success
    error = result.summary.error
    assert error is not None and error["type"] == "invalid_request_error"
    assert "prompt is too long" in error["message"]
    assert "context overflow" in _explained(error)
    assert len(bench.summary_groups()) < LIMIT
    assert result.loss is not None and result.loss.lost() == []


AGENT_ERRORS = {"429": "rate_limit_error", "529": "overloaded_error", "500": "api_error",
                "timeout": "APITimeoutError", "prompt too long": "invalid_request_error"}


@pytest.mark.parametrize("fault", list(AGENT_ERRORS))
@pytest.mark.parametrize("stage", [4, 5])
def test_an_agent_outage_stops_with_a_typed_explained_error(stage: int, fault: str) -> None:
    scenario, model = SCENARIO[stage]
    bench = Bench(scenario).inject(fault, 10_000, target="agent")
    result = run(bench, stage, model=model)
    error = result.summary.error
    assert not result.summary.success and error is not None
    assert error["type"] == AGENT_ERRORS[fault]
    explained = _explained(error)
    title = "context overflow" if fault == "prompt too long" else "transient API error"
    assert title in explained
    assert result.loss is not None


@pytest.mark.parametrize("stage", [4, 5])
def test_an_empty_agent_reply_ends_the_run_without_a_crash(stage: int) -> None:
    scenario, model = SCENARIO[stage]
    result = run(Bench(scenario).inject("empty", 1, target="agent"), stage, model=model)
    assert result.summary.error is None and not result.summary.success
    assert result.problems  # the check says why the task is not done
