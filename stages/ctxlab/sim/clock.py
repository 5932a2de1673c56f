"""A simulated clock: prompt-cache TTLs (R21) and idle gaps run on it, never on wall time."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SimClock:
    """Seconds since the start of the simulation; moves only when told to."""

    now: float = 0.0

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` (e.g. a user idle past the 5-minute TTL, §6.7)."""
        if seconds < 0:
            raise ValueError("the simulated clock cannot go backwards")
        self.now += seconds
        return self.now


@dataclass(frozen=True)
class Latency:
    """How long a simulated call takes: time to first token, then a steady output rate."""

    first_token_s: float = 0.6
    tokens_per_s: float = 80.0

    def duration(self, output_tokens: int) -> float:
        return self.first_token_s + output_tokens / self.tokens_per_s
