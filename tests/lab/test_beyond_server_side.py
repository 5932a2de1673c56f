"""Server-side vs client-side context management on the long task (§6.6, API notes §5–§6)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from widthcheck import WIDTHS, assert_readable, recording, rendered

from ctxlab import models, use
from ctxlab.beyond.server_side import CAPABILITIES, compare_server_side
from ctxlab.brain.retrieval import switched
from ctxlab.cli import main
from ctxlab.peers.cache_only import CacheOnly
from ctxlab.rows import CLEAR_DEFAULTS, compaction_model, repriced
from ctxlab.runner import run
from ctxlab.server_edits import COMPACT, ServerEdits
from ctxlab.workbook.router import FINDER

HAIKU = "claude-haiku-4-5"


@pytest.fixture(scope="module", autouse=True)
def reference() -> Iterator[None]:
    before = FINDER.selection
    use("solutions")
    yield
    use(before.impl, before.stage, before.chain)


@pytest.fixture(scope="module")
def report(reference: None) -> dict[str, Any]:
    """The clearing's mechanics and their cache cost, the model finding what it sees (``--rot
    off``): with context rot on, the variants that run the window full also miss facts in
    view, which the ladder and the bill judge."""
    with switched(False):
        return compare_server_side("long-task", keys=("a", "b", "c", "d", "baseline"))


def row(report: dict[str, Any], key: str) -> dict[str, Any]:
    return next(r for r in report["runs"] if r["variant"] == key)


def test_every_tuned_variant_finishes_the_task(report: dict[str, Any]) -> None:
    assert report["model"] == HAIKU
    for r in report["runs"]:
        assert r["success"], r["variant"]
        assert r["failures"] == 0  # no request rejected: every variant keeps pairs valid


def test_compaction_runs_on_a_model_that_offers_it_and_fits_haiku(report: dict[str, Any]) -> None:
    c = row(report, "c")
    assert not models.get(HAIKU).supports_compaction
    assert models.get(c["model"]).supports_compaction
    assert c["compactions_per_layer"].get("server-compact", 0) >= 1
    assert c["summary_calls"] >= 1  # the compaction iteration is billed as its own call
    assert c["peak_request_tokens"] < models.get(HAIKU).context_window
    assert c["cost_usd_same_prices"] < c["cost_usd"]  # Haiku's prices are lower


def test_clearing_is_applied_and_costs_the_cache(report: dict[str, Any]) -> None:
    a, b, d, base = (row(report, k) for k in ("a", "b", "d", "baseline"))
    assert b["server_edits_applied"] > 0
    # documented behaviour: clearing invalidates the cached prefix from the first cleared block
    assert b["cache_read_share"] < min(a["cache_read_share"], base["cache_read_share"])
    # fewer tokens, more dollars than keeping everything cached: the paradox of §6.5
    assert b["tokens_per_task"] < base["tokens_per_task"]
    assert b["cost_usd_same_prices"] > base["cost_usd_same_prices"]
    # stage 5 keeps the window in the guide's band (§4.6), under the clearing's trigger: the
    # server has nothing to clear when stage 5 runs in front of it
    assert d["server_edits_applied"] == 0 and d["tokens_per_task"] == a["tokens_per_task"]


def test_the_baseline_keeps_everything(report: dict[str, Any]) -> None:
    base = row(report, "baseline")
    assert base["compactions_per_layer"] == {}
    assert base["peak_request_tokens"] > models.get(HAIKU).context_window
    assert base["tokens_per_task"] == max(r["tokens_per_task"] for r in report["runs"])


def test_clearing_with_the_default_keep_refetches_forever(reference: None) -> None:
    summary = run(None, "long-task", layer=CacheOnly(), model=HAIKU,
                  server=ServerEdits((CLEAR_DEFAULTS,)), max_turns=30).summary
    assert not summary.success
    assert summary.duplicate_call_rate > 0.5
    assert summary.longest_unchanged_run >= 3


def test_repricing_uses_each_call_usage(report: dict[str, Any]) -> None:
    a = row(report, "a")
    assert a["cost_usd_same_prices"] == pytest.approx(a["cost_usd"])
    assert repriced([], HAIKU) == 0.0
    assert compaction_model(HAIKU) != HAIKU
    assert compaction_model("claude-opus-4-6") == "claude-opus-4-6"


def test_compaction_on_haiku_is_rejected_by_the_api(reference: None) -> None:
    edit = {"type": COMPACT, "trigger": {"type": "input_tokens", "value": 50_000}}
    summary = run(None, "bugfix-small", layer=CacheOnly(), model=HAIKU,
                  server=ServerEdits((edit,))).summary
    assert summary.error is not None
    assert summary.error["type"] == "invalid_request_error"
    assert "not supported" in summary.error["message"]


def test_capabilities_cover_the_issue_s_three(report: dict[str, Any]) -> None:
    names = " ".join(c["capability"] for c in CAPABILITIES)
    for word in ("pairs", "rebuild", "rules"):
        assert word in names
    assert all(set(c) == {"capability", "a", "b", "c", "d"} for c in CAPABILITIES)


@pytest.mark.shares_runs("capsys reads the command's report")
def test_serverside_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serverside", "--only", "a,c", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["variant"] for r in out["runs"]] == ["a", "c"]
    for key in ("tokens_per_task", "cost_usd", "cost_usd_same_prices", "cache_read_share",
                "success", "model", "peak_request_tokens"):
        assert key in out["runs"][0]
    assert main(["serverside", "--only", "zz"]) == 2


@pytest.mark.parametrize("width", WIDTHS)
def test_the_bill_and_the_capabilities_read_at_any_width(report: dict[str, Any],
                                                         width: int) -> None:
    from ctxlab.commands.serverside_cmd import abilities_lines, abilities_table, bill_table
    from ctxlab.view import fitted

    shown = [r["variant"] for r in report["runs"] if r["variant"] in "abcd"]
    console = recording(width)
    text = rendered(width, fitted(console, [lambda: bill_table(report),
                                            lambda: bill_table(report, True)]),
                    fitted(console, [lambda: abilities_table(report, shown),
                                     lambda: abilities_lines(report, shown)]))
    assert_readable(text, width, [f"{r['tokens_per_task']:,}" for r in report["runs"]]
                    + [f"{r['peak_request_tokens']:,}" for r in report["runs"]])
    flat = " ".join(text.replace("│", " ").split())
    assert all(row["capability"] in flat for row in report["capabilities"])
