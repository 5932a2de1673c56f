"""The total bill (guide §14 stage 5 step 4, §12.1): every stage on the same task.

Token-per-task counts every input and output token of every call, summaries included: a
version that is cheap per turn but takes twice the turns is the more expensive one. The
baseline keeps everything, on a window large enough to hold it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..brain.retrieval import enabled
from ..rows import (
    BASELINE,
    LARGE_WINDOW_MODEL,
    ORACLE,
    ORACLE_ROW,
    PEERS,
    Row,
    layer_row,
    run_row,
    stage_row,
)
from ..runner import KEEP_EVERYTHING
from ..scenarios import load
from ..view.errors import reason
from ..workbook.layout import STAGES, impl_root


def built_stages() -> list[int]:
    """Stages with a reference solution."""
    return [s.number for s in STAGES if (impl_root("solutions") / s.package).exists()]


def peer_rows() -> tuple[list[Row], list[str]]:
    """The peers whose packages are installed, and the packages the others miss."""
    ready = [row for row in PEERS if not row.missing()]
    absent = sorted({name for row in PEERS for name in row.missing()})
    return ready, absent


def compare(scenario: str, *, seed: int = 0, on_run: Callable[[str], None] | None = None,
            stage_options: Mapping[int, dict[str, Any]] | None = None,
            layer: str | None = None, layer_options: dict[str, Any] | None = None,
            peers: bool = False, oracle: bool = False) -> list[dict[str, Any]]:
    """One row per built stage, then the keep-everything baseline; then ``layer``
    (``MODULE:FACTORY``), every installed peer (``ctxlab.rows.PEERS``) and the oracle when
    asked. ``stage_options``: stage → its ``make_layer`` options (``--set`` without
    ``--layer``). Each row is an entry of ``ctxlab.rows``, run by the one runner."""
    rows = [stage_row(s, (stage_options or {}).get(s)) for s in built_stages()]
    rows.append(BASELINE)
    if layer is not None:
        rows.append(layer_row(layer, layer_options))
    if peers:
        rows += peer_rows()[0]
    if peers or oracle:
        rows.append(ORACLE_ROW)
    out = []
    for row in rows:
        if on_run:
            on_run(row.what if row.kind == "stage" else str(row.name))
        out.append(run_row(row, scenario, seed=seed))
    return out


def versus_oracle(rows: list[dict[str, Any]], *, rot: bool | None = None) -> float | None:
    """Stage 5's tokens over the oracle's, where the oracle is a bound: None when either row
    is missing, and with context rot on (``rot``; None: as this process runs) when a
    successful row sends fewer tokens than the oracle. The oracle knows what the plan needs,
    not what the simulated model will miss in a long request (§4): with rot on, a layer can
    finish with less than the oracle shows, and a ratio to it would claim a bound that did
    not hold. With rot off, the ratio is always given (there it is a bound)."""
    by = {row["stage"]: row for row in rows}
    if 5 not in by or ORACLE not in by or not by[ORACLE]["tokens_per_task"]:
        return None
    if (enabled() if rot is None else rot) and not bound_holds(rows):
        return None
    return by[5]["tokens_per_task"] / by[ORACLE]["tokens_per_task"]


def bound_holds(rows: list[dict[str, Any]]) -> bool:
    """Whether no successful row sends fewer tokens than the oracle's row."""
    oracle = next(row for row in rows if row["stage"] == ORACLE)
    return all(row["tokens_per_task"] >= oracle["tokens_per_task"] for row in rows
               if row["success"] and row["stage"] != ORACLE)


def bill_markdown(rows: list[dict[str, Any]]) -> str:
    """The total bill as the README's Markdown table (``ctxlab compare --markdown``)."""
    lines = ["| run | success | turns | tokens per task | cost | cache read share |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        label = _label(row)
        if row["error"]:
            done = f"no (`{reason(row['error']['message'])}`)"
        elif not row["success"]:
            done = "no (the checks fail)"
        else:
            dup = row["duplicate_call_rate"]
            done = "yes" + (f", {dup:.0%} duplicate calls".replace("%", " %") if dup > 0.05
                            else "")
        lines.append(f"| {label} | {done} | {row['turns']} | {row['tokens_per_task']:,} | "
                     f"${row['cost_usd']:.2f} | {row['cache_read_share']:.0%} |"
                     .replace("% |", " % |"))
    ratio = versus_oracle(rows)
    if ratio is not None:
        lines.append(f"\nstage 5 / oracle: {ratio:.2f}× the oracle's tokens")
    return "\n".join(lines) + "\n"


def _label(row: dict[str, Any]) -> str:
    stage = row["stage"]
    if isinstance(stage, int):
        return f"stage {stage}"
    if stage == KEEP_EVERYTHING:
        return f"keep everything ({LARGE_WINDOW_MODEL}, 1M window)"
    if stage == ORACLE:
        return "oracle (a bound, not a method)"
    model = row.get("model")
    return f"{stage} ({model})" if model and model != load(row["scenario"]).model else stage
