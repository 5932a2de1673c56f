"""Invariants under generated input (issue 8, item 1).

Random histories — parallel calls, thinking, split assistant entries, images, huge results —
pushed through ``find_safe_cut``, the stage-3, -4 and -5 context layers and the replay
importer. The oracle is the simulator's own validator (``ctxlab.replay.check.violation``), and
the loss manifest (``ctxlab.loss``) says where each user message went. Properties:

- no transformation ever produces a request the API would reject;
- a user message leaves the context only into a summary or the archived transcript (stage 4),
  or is put back verbatim (stage 5); stage 3 removes nothing;
- what is removed is on disk, in a summary, or listed in the manifest with the layer that
  removed it — nothing leaves unreported.

Budgets: ``strategies.BUDGETS`` (``CTXLAB_HYPOTHESIS=large`` for the large set).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from harness import MODEL, drive
from hypothesis import given
from hypothesis import strategies as st
from s2_truncate import api_rounds, find_safe_cut
from s3_offload import make_layer as offload_layer
from s4_summarize import make_layer as summary_layer
from s5_pipeline import estimate_tokens
from s5_pipeline import make_layer as pipeline_layer
from strategies import blocks_of, cases, histories, tool_ids, user_texts

from ctxlab.loss import IN_CONTEXT, IN_SUMMARY, NOWHERE, ON_DISK, UNREPORTED
from ctxlab.replay.check import violation
from ctxlab.tokens import count_messages

FAST = {"sleep": lambda seconds: None}  # no real waiting between summarizer retries


def _workspace() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="ctxlab-prop-")


# ---- find_safe_cut -----------------------------------------------------------------------------

@cases("safe_cut")
@given(histories(), st.integers(0, 60_000))
def test_find_safe_cut_keeps_a_valid_history(history: list[dict], budget: int) -> None:
    rounds = api_rounds(history)
    cut = find_safe_cut(history, budget, count_messages)
    first_end = rounds[0][1]
    if len(rounds) < 2:
        assert cut == len(history)
        return
    assert cut in [start for start, _ in rounds[1:]]  # only where a round starts
    kept = history[:first_end] + history[cut:]
    assert violation(kept, model=MODEL) is None
    if cut > rounds[1][0]:  # it dropped something: nothing smaller than ``cut`` fitted
        earlier = [s for s, _ in rounds[1:] if s < cut]
        assert all(count_messages(history[:first_end] + history[s:]) > budget for s in earlier)
    if cut != rounds[-1][0]:
        assert count_messages(kept) <= budget
    assert set(user_texts(history[:first_end])) <= set(user_texts(kept))  # the task stays


# ---- stage 3: offload moves, never loses -----------------------------------------------------

@cases("stage3")
@given(histories())
def test_stage3_offload_is_valid_and_loses_nothing(history: list[dict]) -> None:
    with _workspace() as folder:
        run = drive(offload_layer(per_result=20_000, per_message=60_000), history, Path(folder))
        assert run.problems == []
        assert run.loss is not None and run.loss.lost() == []
        for item in run.loss.of("tool_use"):
            assert item.status in (IN_CONTEXT, ON_DISK), item
            if item.status == ON_DISK:
                assert item.where.startswith(".task_outputs/tool-results/")
                assert item.why == "offload"
                assert any(item.where in str(b.get("content")) for m in run.final
                           for b in blocks_of(m) if b.get("tool_use_id") == item.key)
        assert all(i.status == IN_CONTEXT for i in run.loss.of("user_message"))
        assert tool_ids(run.final) == tool_ids(history)


# ---- stage 4: summary, PTL retry, breaker, archive ---------------------------------------------

@cases("stage4")
@given(histories(min_rounds=2), st.sampled_from(["structured", "free-form"]))
def test_stage4_is_valid_and_archives_what_it_removes(history: list[dict],
                                                      template: str) -> None:
    with _workspace() as folder:
        layer = summary_layer(template=template, per_result=20_000, per_message=60_000, **FAST)
        run = drive(layer, history, Path(folder))
        assert run.problems == []
        assert run.loss is not None and run.loss.lost() == [], run.loss.lost()
        for item in run.loss.items:
            assert item.status in (IN_CONTEXT, IN_SUMMARY, ON_DISK), item
            if item.status != IN_CONTEXT and item.kind != "file":
                assert item.why and item.why != UNREPORTED, item
        for item in run.loss.of("user_message"):  # a user message leaves only into the archive
            assert item.status == IN_CONTEXT or item.where == ".transcripts/session.jsonl", item


def test_stage4_really_compacts_and_retries_too_long_summaries() -> None:
    """The generated histories do reach the summary, the PTL retry and the fallback."""
    layers: set[str] = set()

    @cases("stage4")
    @given(histories(min_rounds=8))
    def collect(history: list[dict]) -> None:
        with _workspace() as folder:
            run = drive(summary_layer(per_result=20_000, per_message=60_000, **FAST), history,
                        Path(folder))
            layers.update(e["layer"] for e in run.events)

    collect()
    assert {"summary", "offload"} <= layers


# ---- stage 5: the pipeline -------------------------------------------------------------------

@cases("stage5")
@given(histories(min_rounds=2))
def test_stage5_is_valid_and_reports_every_loss(history: list[dict]) -> None:
    with _workspace() as folder:
        layer = pipeline_layer(per_result=20_000, per_message=60_000, summary=dict(FAST))
        run = drive(layer, history, Path(folder))
        assert run.problems == []
        assert run.loss is not None
        for item in run.loss.of("user_message"):  # put back verbatim, summarized or archived
            assert item.status != NOWHERE, item
        for item in run.loss.items:
            if item.status != IN_CONTEXT and item.kind != "file":
                assert item.why and item.why != UNREPORTED, item
        for item in run.loss.lost():  # only the cheap layers destroy, and they say so
            assert set(item.why.split(", ")) & {"snip", "microcompact", "blocking", "summary",
                                                "ptl-drop"}, item
        window_rule_holds(run.final, history)


def window_rule_holds(final: list[dict], history: list[dict]) -> None:
    """Stage 5 keeps the request inside the window whenever the task and the newest round
    alone would fit (nothing can make a single oversized round fit)."""
    rounds = api_rounds(history)
    floor = history[:rounds[0][1]] + (history[rounds[-1][0]:] if len(rounds) > 1 else [])
    if estimate_tokens(floor) < 9_000:
        assert count_messages(final) < 32_000


def test_stage5_reaches_every_layer() -> None:
    layers: set[str] = set()

    @cases("stage5")
    @given(histories(min_rounds=8))
    def collect(history: list[dict]) -> None:
        with _workspace() as folder:
            layer = pipeline_layer(per_result=20_000, per_message=60_000, keep_last=12,
                                   summary=dict(FAST))
            layers.update(e["layer"] for e in drive(layer, history, Path(folder)).events)

    collect()
    assert {"offload", "microcompact", "summary"} <= layers
