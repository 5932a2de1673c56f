"""Stage 2 — truncation done wrong, then right (guide §14 stage 2, §9.2, §12.2).

First the obvious version: when the estimate passes 80 % of the window, drop the oldest
messages. It cuts between a ``tool_use`` and its ``tool_result`` and the API rejects the next
request. Then the fix: cut only at API round boundaries, check every request before sending,
and measure what truncation costs — the agent re-reads what was thrown away (thrashing).
"""

from s1_loop import estimate_tokens

from .cut import find_safe_cut
from .layer import TruncationLayer
from .rounds import api_rounds
from .thrash import ThrashReport, thrash_report
from .truncate import naive_truncate
from .valid import InvalidHistory, assert_messages_valid, first_violation


def make_layer(*, naive: bool = False, ratio: float = 0.8) -> TruncationLayer:
    """The stage's context layer: safe truncation (or the naive one, to see it fail)."""
    return TruncationLayer(naive=naive, ratio=ratio)


__all__ = [
    "InvalidHistory", "ThrashReport", "TruncationLayer", "api_rounds",
    "assert_messages_valid", "estimate_tokens", "find_safe_cut", "first_violation",
    "make_layer", "naive_truncate", "thrash_report",
]
