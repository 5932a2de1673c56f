"""The complete system's reports: the total bill, acceptance, the ch8.3 example (§14, §12.8)."""

from __future__ import annotations

import json

import pytest

from ctxlab.cli import main

pytestmark = pytest.mark.exercise("5.5")


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> object:
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def test_acceptance_every_layer_fires(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _json(capsys, ["accept", "--json"])
    assert code == 0 and report["passed"] is True
    layers = {row["layer"]: row for row in report["layers"]}
    assert set(layers) == {"offload", "snip", "microcompact", "summary", "blocking"}
    assert all(row["triggers"] > 0 and row["freed_tokens"] > 0 for row in layers.values())
    assert layers["blocking"]["model_calls"] == 0


def test_the_ch8_worked_example_within_ten_percent(capsys: pytest.CaptureFixture[str]) -> None:
    code, table = _json(capsys, ["example", "ch8.3", "--json"])
    assert code == 0
    for key, excerpt in (("start", 180_000), ("after_l3", 132_000), ("after_l1", 132_000),
                         ("after_l2", 71_000)):
        assert table[key] == pytest.approx(excerpt, rel=0.10), key
    assert table["snipped_messages"] == 0 and table["l4_ran"] is False


@pytest.mark.parametrize("scenario", ["long-task", "medium-results"])
def test_the_total_bill(capsys: pytest.CaptureFixture[str], scenario: str) -> None:
    code, rows = _json(capsys, ["compare", "--scenario", scenario, "--json"])
    assert code == 0
    by_stage = {row["stage"]: row for row in rows}
    assert set(by_stage) == {1, 2, 3, 4, 5, "keep-everything"}
    five = by_stage[5]
    assert five["success"] and five["cache_read_share"] >= 0.8
    finished = [row for row in rows if row["success"]]
    assert five["tokens_per_task"] <= min(row["tokens_per_task"] for row in finished) * 1.001
    assert five["cost_usd"] == min(row["cost_usd"] for row in finished)
