"""Beyond the guide: what the guide argues, measured on the bench (issue 10).

- ``server_side``: the long task managed by the client (stage 5), by the API's
  ``clear_tool_uses_20250919`` or ``compact_20260112``, or both — one bill (§6.6).
- ``probes`` / ``summaries``: the four probe kinds of §12.5, generated from a scenario's
  ground truth, asked after each kind of compaction and scored automatically.
- ``cache_cost`` / ``cost_report`` / ``cold_cache``: compact now or after N turns, in dollars,
  and the 60-minute cold-cache argument on the simulated clock (§6.5–§6.7).
- the server-side variants run with ``CacheOnly`` (``ctxlab.peers.cache_only``), the client
  that only lays out the cache breakpoints (any layer runs on ``runner.run(layer=...,
  server=...)``).

Each has a command with ``--json``: ``ctxlab serverside``, ``ctxlab probe``,
``ctxlab cachecost``; ``notebooks/06_beyond.ipynb`` shows all three.
"""

from ..peers.cache_only import CacheOnly
from ..server_edits import BetaSession, ServerEdits
from .cache_cost import Situation, compact_now, miss_vs_hit, next_request, plan
from .cold_cache import cold_cache_check
from .cost_report import cache_cost_report, situation_at
from .probes import KINDS, Probe, ground_truth, make_probes, score
from .server_side import CAPABILITIES, VARIANTS, compare_server_side
from .summaries import compare_summaries

__all__ = [
    "CAPABILITIES", "KINDS", "VARIANTS", "BetaSession", "CacheOnly", "Probe", "ServerEdits",
    "Situation", "cache_cost_report", "cold_cache_check", "compact_now", "compare_server_side",
    "compare_summaries", "ground_truth", "make_probes", "miss_vs_hit", "next_request", "plan",
    "score", "situation_at",
]
