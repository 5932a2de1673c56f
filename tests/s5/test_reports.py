"""The complete system's reports: the total bill, acceptance, the ch8.3 example (§14, §12.8).

They call the report functions directly (the commands print the same data with ``--json``), so
an unfinished stage shows as the exercise's own ``NotImplementedError``.
"""

from __future__ import annotations

import pytest
from s5_pipeline.thresholds import BAND

from ctxlab.report.accept import accept
from ctxlab.report.ch8 import worked_example
from ctxlab.report.compare import compare, versus_oracle
from ctxlab.workbook.layout import repo_root

pytestmark = pytest.mark.exercise("5.5")


@pytest.mark.checklist("B.33", partly="every stage-5 layer fires, on the simulated drill")
def test_acceptance_every_layer_fires(tmp_path) -> None:
    report = accept(tmp_path)
    assert report["passed"] is True
    layers = {row["layer"]: row for row in report["layers"]}
    assert set(layers) == {"offload", "snip", "microcompact", "summary", "blocking"}
    assert all(row["triggers"] > 0 and row["freed_tokens"] > 0 for row in layers.values())
    assert layers["blocking"]["model_calls"] == 0


def _readme() -> str:
    """The README with line breaks as spaces (its figures wrap)."""
    return " ".join((repo_root() / "README.md").read_text(encoding="utf-8").split())


def test_the_ch8_worked_example_within_ten_percent() -> None:
    table = worked_example()
    for key, excerpt in (("start", 180_000), ("after_l3", 132_000), ("after_l1", 132_000),
                         ("after_l2", 71_000)):
        assert table[key] == pytest.approx(excerpt, rel=0.10), key
    assert table["snipped_messages"] == 0 and table["l4_ran"] is False
    assert (f"{table['start']:,} → {table['after_l3']:,} (L3) → {table['after_l1']:,} (L1"
            in _readme())  # the README quotes this run (`ctxlab example ch8.3`)
    assert f"→ {table['after_l2']:,} (L2) tokens" in _readme()


@pytest.mark.parametrize("scenario", ["long-task", "medium-results", "chat-heavy"])
@pytest.mark.checklist("B.29")
def test_the_total_bill(scenario: str) -> None:
    """Stage 5 finishes with the smallest bill and the fewest tokens of every finished run
    (the oracle and the keep-everything baseline aside), within 2× the oracle's tokens (the
    issue's line; the README quotes the ratio).

    It gets there by clearing from the first request, in batches that repay the prefix they
    rewrite and the chance of a fetch again (§6.5, §7.4): a result cleared soon after the agent
    saw it has little history behind it to rewrite, so the occupancy stays well below the
    guide's band (§4.6), its upper edge, 65 %, a bound it never reaches. On ``long-task`` that
    is at most 0.8× stage 4's tokens and dollars, the ratios ``make demo`` shows; on
    ``chat-heavy`` the README quotes the bills of stages 4 and 5. The README's figures are
    these runs.
    """
    rows = compare(scenario, oracle=True)
    by_stage = {row["stage"]: row for row in rows}
    assert {1, 2, 3, 4, 5, "keep-everything", "oracle"} <= set(by_stage)
    five, oracle = by_stage[5], by_stage["oracle"]
    assert five["success"] and five["peak_occupancy"] <= BAND[1]
    others = [row for row in rows if row["success"] and row["stage"] not in
              (5, "keep-everything", "oracle")]
    assert five["cost_usd"] < min(row["cost_usd"] for row in others)
    assert five["tokens_per_task"] < min(row["tokens_per_task"] for row in others)
    assert oracle["success"] and versus_oracle(rows) <= 2.0
    four = by_stage[4]
    readme = _readme()
    assert f"stage 5 / oracle: {versus_oracle(rows):.2f}×" in readme
    if scenario == "long-task":
        assert five["tokens_per_task"] <= 0.8 * four["tokens_per_task"]
        assert five["cost_usd"] <= 0.8 * four["cost_usd"]
    elif scenario == "chat-heavy":
        assert f"stage 4 pays ${four['cost_usd']:.2f} and stage 5 ${five['cost_usd']:.2f}" \
            in readme
        assert f"{five['tokens_per_task']:,} against {four['tokens_per_task']:,}" in readme
