"""Rich views of telemetry: tables, a live dashboard, progress bars, error explanations (§2).

Every count shown carries the tokenizer caveat (``ctxlab.tokens.CAVEAT``): the reference
tokenizer stands in for Claude's, which is not public.
"""

from ctxlab.view.dashboard import Dashboard, occupancy_bar, totals
from ctxlab.view.errors import explain_error, parse_prompt_too_long
from ctxlab.view.progress import progress
from ctxlab.view.tables import summary_table, turn_table

__all__ = [
    "Dashboard",
    "explain_error",
    "occupancy_bar",
    "parse_prompt_too_long",
    "progress",
    "summary_table",
    "totals",
    "turn_table",
]
