"""Rich views of telemetry: tables, a live dashboard, progress bars, error explanations (§2).

Every count shown carries the tokenizer caveat (``ctxlab.tokens.CAVEAT``): the reference
tokenizer stands in for Claude's, which is not public.
"""

from ctxlab.view.dashboard import Dashboard, occupancy_bar, totals
from ctxlab.view.errors import explain_error, parse_prompt_too_long
from ctxlab.view.fit import compact_table, figures, fitted
from ctxlab.view.progress import progress
from ctxlab.view.tables import summary_table, summary_view, turn_table, turn_view

__all__ = [
    "Dashboard",
    "compact_table",
    "explain_error",
    "figures",
    "fitted",
    "occupancy_bar",
    "parse_prompt_too_long",
    "progress",
    "summary_table",
    "summary_view",
    "totals",
    "turn_table",
    "turn_view",
]
