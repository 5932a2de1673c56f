"""What the pipeline knows of a request's size (guide §9.5): a ratio learned on the messages
alone, and the rest of the request measured apart from them.

The API reports the size of the whole request: the system prompt, the tool definitions, what
the client adds, and the messages. A layer can change only the messages, and it may not even
see the rest (a replayed log holds no system prompt, no tools). Scaling the whole estimate by
reported/estimated would charge that unseen part to the messages: every size, trigger and
"tokens freed" would grow with it, and a longer system prompt or a new tool would make the
history look several times bigger than it is. So the two are kept apart:

- ``ratio``: counted / estimated on the messages only. The count is the API's own
  (``count_tokens``, free), taken whenever the layer is about to act, so what a layer reports
  freed is counted, not guessed;
- the *unseen* part: what the last usage reported beyond its messages' share. It is measured
  (reported minus the messages), never scaled, so it follows a changed system prompt or tool
  list exactly.

The size of the request about to be sent is the last reported size plus the growth since, and
the growth is calibrated too: between two requests that no layer touched (no count was taken:
the pipeline counts before it acts) the history only grew, so the second usage minus the first
is the API's own figure for what was added, and divided by the estimate of the same messages it
is ``growth``, the ratio of the content arriving now (a session reading base64 or minified code
learns that kind's cost, one reading prose another). Until two such usages are known, the
messages' ``ratio`` stands in for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from s1_loop import reported_tokens

MIN_GROWTH = 200
"""Estimated tokens a request must have added for its usage to calibrate the growth: a short
reply alone is mostly framing and rounding."""


@dataclass
class Calibration:
    """The messages' ratio and the last usage, to size a request before it is sent."""

    ratio: float = 1.0  # counted / estimated tokens of the messages (§9.5)
    sent: tuple[Any, float] | None = None  # (usage known when sending, messages' estimate)
    reported: tuple[int, float] | None = None  # (reported size, estimate of its messages)
    growth: float | None = None  # reported / estimated growth between untouched requests
    grown: bool = False  # whether the request sent since ``reported`` only added messages

    def learn(self, usage: Any) -> None:
        """Take the usage of the last request sent, once it has arrived."""
        if self.sent is not None and usage is not None and usage is not self.sent[0]:
            now = (reported_tokens(usage), self.sent[1])
            if self.reported is not None and self.grown:
                added, estimated = now[0] - self.reported[0], now[1] - self.reported[1]
                if estimated >= MIN_GROWTH and added > 0:
                    self.growth = added / estimated
            self.reported, self.sent, self.grown = now, None, True

    def unseen(self, fixed: int) -> int:
        """What the last usage held beyond its messages; ``fixed`` (the estimate of the system
        prompt and tools the layer sees) until a usage has been reported."""
        if self.reported is None:
            return fixed
        size, messages = self.reported
        return max(0, size - round(self.ratio * messages))

    def size(self, estimate: float, fixed: int) -> int:
        """The request's size from the estimate of its messages: the last reported size plus
        the calibrated growth since."""
        if self.reported is not None and self.growth is not None:
            size, messages = self.reported
            if estimate > messages:
                return size + round(self.growth * (estimate - messages))
        return round(self.ratio * estimate) + self.unseen(fixed)

    def counted(self, tokens: int, estimate: float) -> None:
        """Learn the ratio from the API's count of messages whose estimate is ``estimate``.
        A count comes before a layer acts: the next usage is not this request grown."""
        if tokens > 0 and estimate > 0:
            self.ratio = tokens / estimate
        self.grown = False
