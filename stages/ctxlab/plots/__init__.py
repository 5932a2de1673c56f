"""Charts and controls for the notebooks (DESIGN §2: ``ctxlab.plots``).

Every chart is drawn on a fresh ``matplotlib.figure.Figure`` (never pyplot's global state, so
it works headless and under any backend) and returned; a notebook shows it by leaving it as a
cell's last expression. The numbers behind each chart come from functions next to it, so a
notebook can print them as well as draw them. Every chart of token counts carries the caveat:
the counts are cl100k_base, a stand-in for Claude's tokenizer (``ctxlab.tokens.CAVEAT``).

- ``plot_context``: per-turn context size against the window (guide §14 stage 1 step 4).
- ``plot_composition`` / ``plot_composition_over_turns``: what the context is made of (§2.2).
- ``plot_estimate_error`` / ``plot_chars_per_token``: chars/4 against the count (§9.5).
- ``plot_thrash``: repeated tool calls over the turns (§12.2).
- ``RerunPanel``: a slider, a dropdown and a button that rerun a stage and redraw.
- ``outline``: a history as a table, one row per message, with its API rounds (§9.2).
- ``run_recorded``: a run plus every tool call with its result, for ``thrash_report``;
  ``run_viewed``: a run plus every request the agent saw (both shared like runs).
- ``plot_offloads`` / ``plot_refetch``: what stage 3 put on disk, and re-reads against
  recovery reads (§3.2, §7.4).
- ``plot_layers`` / ``plot_thresholds``: which layer fired when and what it freed; where the
  thresholds sit on different windows (§7.2, §8.1, §12.6).
- ``plot_occupancy``: each request's share of the window against the band (§4.6).
- ``plot_cache``: cache read, write and uncached per call, with cache-break attribution;
  ``prefix_reuse`` / ``plot_prefix_reuse``: how much of each request repeats the last one
  (§6, §12.6).
- ``plot_bill``: the total bill of ``ctxlab.report.compare`` (§12.1, §14 stage 5).
- ``OptionsPanel``: any stage's options under sliders; rerun and redraw.
"""

from .band import plot_occupancy
from .bill import bill_label, plot_bill
from .cache import CacheSeries, Reuse, cache_series, plot_cache, plot_prefix_reuse, prefix_reuse
from .calls import Call, CallRecorder, calls_from_views, run_recorded, run_viewed
from .composition import (
    KINDS,
    composition,
    composition_by_turn,
    plot_composition,
    plot_composition_over_turns,
)
from .context import ContextSeries, context_series, plot_context
from .controls import RerunPanel
from .estimate import chars_per_token, estimate_errors, plot_chars_per_token, plot_estimate_error
from .history import describe_block, outline
from .layers import (
    LAYER_COLORS,
    LayerEvent,
    layer_events,
    layer_totals,
    plot_layers,
    plot_thresholds,
)
from .offload import Offloaded, offloaded, plot_offloads, plot_refetch, recovery_reads
from .panel import Knob, OptionsPanel, model_knob
from .thrash import ThrashSeries, plot_thrash, thrash_series

__all__ = [
    "KINDS", "LAYER_COLORS", "CacheSeries", "Call", "CallRecorder", "ContextSeries", "Knob",
    "LayerEvent", "Offloaded", "OptionsPanel", "RerunPanel", "Reuse", "ThrashSeries",
    "bill_label", "cache_series", "calls_from_views", "chars_per_token", "composition",
    "composition_by_turn", "context_series", "describe_block", "estimate_errors",
    "layer_events", "layer_totals", "model_knob", "offloaded", "outline",
    "plot_bill", "plot_cache", "plot_chars_per_token", "plot_composition",
    "plot_composition_over_turns", "plot_context", "plot_estimate_error", "plot_layers",
    "plot_occupancy", "plot_offloads", "plot_prefix_reuse", "plot_refetch", "plot_thrash",
    "plot_thresholds",
    "prefix_reuse", "recovery_reads", "run_recorded", "run_viewed", "thrash_series",
]
