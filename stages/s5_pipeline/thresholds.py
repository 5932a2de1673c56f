# Generated from solutions/s5_pipeline/thresholds.py — your exercise: edit it.
# `ctxlab workbook reset 5` regenerates it (your version is backed up first).
"""Exercise 5.1 — thresholds as absolute buffers, not percentages (guide §8), and the band.

The trigger is the window minus what the compaction itself needs: room for the summary's
output (20,000 tokens, the p99.99 of summary lengths, 17,387, rounded up, §8.1) and a buffer
(13,000, §8.1). The completion buffer — room to finish the current turn plus a summary — is
a *floor* under that margin, not a second subtraction (§8.4). Below everything sits the
blocking tier: 3,000 tokens left and only a local truncation may run, never a model call (§8.5).

Well below the trigger lies the band the occupancy should stay in: 50–65 % of the window
(§4.6). Past about 50 % attention turns into pure recency and early facts are mostly ignored,
so the tokens paid for them are wasted; sid-code masks tool output at 60 % and summarizes at
70 % of a 200K window (§4.6). The band is a ceiling, not a start: the cheap clearing tier
runs below it whenever a batch repays (§6.5), and the band's upper edge is where it runs
whatever the cache says.
Neither edge ever lies above the trigger (a small window has no room for a band below it).

The offload budgets of §2.4 (50,000 characters per result, 200,000 per message) were set for a
200K-token window, where one message's budget is about a quarter of it (~4 characters a token).
A smaller window keeps that share (``offload_budgets``): on a 32K window one turn of results
at the 200K window's budget fills the window past the blocking mark by itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from s3_offload import PER_MESSAGE, PER_RESULT

SUMMARY_RESERVE = 20_000
BUFFER = 13_000
BLOCKING_LEFT = 3_000
BAND = (0.50, 0.65)  # the occupancy to stay in, as shares of the window (§4.6)
BUDGET_WINDOW = 200_000  # the window §2.4's offload budgets were set for


@dataclass(frozen=True)
class Thresholds:
    """Token counts at which the pipeline acts, for one window."""

    window: int
    compact_at: int  # run the pipeline above this
    target: int  # the cheap layers stop as soon as the context is at or below this
    blocking_at: int  # above this: local truncation only
    band_low: int  # the band's lower edge: where the occupancy to stay in begins (§4.6)
    band_high: int  # above this it clears, whatever the cache (§4.6)

    @property
    def compact_share(self) -> float:
        return self.compact_at / self.window


def thresholds(window: int, completion_buffer: int = 0, target_share: float = 0.6,
               summary_reserve: int = SUMMARY_RESERVE) -> Thresholds:
    """The thresholds for ``window``.

    ``compact_at`` = window − max(summary_reserve + BUFFER, completion_buffer): the completion
    buffer raises the margin only when it is the larger (a floor). A model whose maximum output
    is below 20,000 passes its own maximum as ``summary_reserve`` (a structural fact from the
    model table, §8.4 — never a per-model-name special case). ``target`` =
    ``target_share`` × ``compact_at`` (hysteresis, so the next turn does not trigger again).
    ``blocking_at`` = window − BLOCKING_LEFT. ``band_low`` and ``band_high``: the ``BAND``
    shares of the window, each at most ``compact_at``.
    """
    raise NotImplementedError("Exercise 5.1 — thresholds(): see notebooks/05_pipeline.ipynb")


def offload_budgets(window: int) -> tuple[int, int]:
    """§2.4's offload budgets (per result, per message) for ``window``: as they are, and on a
    window smaller than ``BUDGET_WINDOW`` the per-message one at the same share of it (the
    per-result one never above it)."""
    per_message = min(PER_MESSAGE, PER_MESSAGE * window // BUDGET_WINDOW)
    return min(PER_RESULT, per_message), per_message
