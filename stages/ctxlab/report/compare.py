"""The total bill (guide §14 stage 5 step 4, §12.1): every stage on the same task.

Token-per-task counts every input and output token of every call, summaries included: a
version that is cheap per turn but takes twice the turns is the more expensive one. The
baseline keeps everything, on a window large enough to hold it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..runner import KEEP_EVERYTHING, run
from ..workbook.layout import STAGES, impl_root

LARGE_WINDOW_MODEL = "claude-sonnet-4-6"  # 1M tokens: holds every scenario whole


def built_stages() -> list[int]:
    """Stages with a reference solution."""
    return [s.number for s in STAGES if (impl_root("solutions") / s.package).exists()]


def compare(scenario: str, *, seed: int = 0,
            on_run: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """One run summary per built stage, then the keep-everything baseline."""
    rows = []
    for stage in [*built_stages(), None]:
        label = KEEP_EVERYTHING if stage is None else f"stage {stage}"
        if on_run:
            on_run(label)
        model = LARGE_WINDOW_MODEL if stage is None else None
        rows.append(run(stage, scenario, model=model, seed=seed).summary.to_dict())
    return rows
