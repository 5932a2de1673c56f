"""Stage 5 — the complete system (guide §14 stage 5, §5–§8, §10–§12; excerpt ch8).

The earlier stages become layers of one pipeline ordered by how much detail each destroys:
offload (stage 3) → snip → microcompact → LLM summary (stage 4), re-measuring after each.
Around it: thresholds as absolute buffers, cache zones that keep the prefix byte-identical,
frozen decisions, constraints kept outside the compressible history, and a calibrated
estimate. Telemetry and acceptance checks prove every layer really fires.
"""

from typing import Any

from .estimate import calibrate, estimate_tokens
from .microcompact import microcompact, placeholder
from .pipeline import Pipeline
from .snip import snip
from .thresholds import Thresholds, thresholds
from .zones import mark_newest, zoned_system, zoned_tools

SUMMARY_DEFAULTS = {"keep_recent": 0.25}
"""After a summary, keep a quarter of the window verbatim: the pipeline compacts to a target,
and the current work must survive it, or the agent re-fetches and re-triggers (§10.3)."""


def make_layer(**options: Any) -> Pipeline:
    """The stage's context layer; ``summary`` options go to stage 4's summarizer. Its
    per-message steps are made incremental by the bench (``ctxlab.incremental``): the same
    requests, at the cost of what each turn adds."""
    from s4_summarize import summarizer

    from ctxlab.incremental import incremental

    summary = {**SUMMARY_DEFAULTS, **options.pop("summary", {})}
    return incremental(Pipeline(summarize=summarizer(**summary), **options))


__all__ = [
    "Pipeline", "Thresholds", "calibrate", "estimate_tokens", "make_layer", "mark_newest",
    "microcompact", "placeholder", "snip", "thresholds", "zoned_system", "zoned_tools",
]
