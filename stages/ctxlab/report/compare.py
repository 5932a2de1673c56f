"""The total bill (guide §14 stage 5 step 4, §12.1): every stage on the same task.

Token-per-task counts every input and output token of every call, summaries included: a
version that is cheap per turn but takes twice the turns is the more expensive one. The
baseline keeps everything, on a window large enough to hold it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..runner import KEEP_EVERYTHING, run
from ..workbook.layout import STAGES, impl_root

LARGE_WINDOW_MODEL = "claude-sonnet-4-6"  # 1M tokens: holds every scenario whole


def built_stages() -> list[int]:
    """Stages with a reference solution."""
    return [s.number for s in STAGES if (impl_root("solutions") / s.package).exists()]


def compare(scenario: str, *, seed: int = 0,
            on_run: Callable[[str], None] | None = None,
            layer_options: Mapping[int, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One run summary per built stage, then the keep-everything baseline;
    ``layer_options``: stage → its ``make_layer`` options (``--set``)."""
    rows = []
    for stage in [*built_stages(), None]:
        label = KEEP_EVERYTHING if stage is None else f"stage {stage}"
        if on_run:
            on_run(label)
        model = LARGE_WINDOW_MODEL if stage is None else None
        options = (layer_options or {}).get(stage) if stage is not None else None
        rows.append(run(stage, scenario, model=model, seed=seed,
                        layer_options=options).summary.to_dict())
    return rows


def bill_markdown(rows: list[dict[str, Any]]) -> str:
    """The total bill as the README's Markdown table (``ctxlab compare --markdown``)."""
    lines = ["| run | success | turns | tokens per task | cost | cache read share |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        label = f"stage {row['stage']}" if row["stage"] != KEEP_EVERYTHING else (
            f"keep everything ({LARGE_WINDOW_MODEL}, 1M window)")
        if row["error"]:
            done = f"no (`{row['error']['message'].split(':')[0]}`)"
        elif not row["success"]:
            done = "no (the checks fail)"
        else:
            dup = row["duplicate_call_rate"]
            done = "yes" + (f", {dup:.0%} duplicate calls".replace("%", " %") if dup > 0.05
                            else "")
        lines.append(f"| {label} | {done} | {row['turns']} | {row['tokens_per_task']:,} | "
                     f"${row['cost_usd']:.2f} | {row['cache_read_share']:.0%} |"
                     .replace("% |", " % |"))
    return "\n".join(lines) + "\n"
