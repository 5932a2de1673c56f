"""What the pipeline knows of a request's size (guide §9.5): a ratio learned on the messages
alone, and the rest of the request measured apart from them.

The API reports the size of the whole request: the system prompt, the tool definitions, what
the client adds, and the messages. A layer can change only the messages, and it may not even
see the rest (a replayed log holds no system prompt, no tools). Scaling the whole estimate by
reported/estimated would charge that unseen part to the messages: every size, trigger and
"tokens freed" would grow with it, and a longer system prompt or a new tool would make the
history look several times bigger than it is. So the two are kept apart:

- ``ratio``: counted / estimated on the messages only. The count is the API's own
  (``count_tokens``, free), taken only when the estimate is too uncertain to decide on (below);
- the *unseen* part: what the last usage reported beyond its messages' share. It is measured
  (reported minus the messages), never scaled, so it follows a changed system prompt or tool
  list exactly.

The size of the request about to be sent is the last reported size plus the growth since, and
the growth is calibrated too: between two requests that no layer touched (no count was taken:
the pipeline counts before it acts) the history only grew, so the second usage minus the first
is the API's own figure for what was added, and divided by the estimate of the same messages it
is ``growth``, the ratio of the content arriving now (a session reading base64 or minified code
learns that kind's cost, one reading prose another). Until two such usages are known, the
messages' ``ratio`` stands in for it. What a layer removes is sized the same way, so a request
after a layer is the last reported size, minus the calibrated estimate of what went, plus that
of what came.

Only the part sized from the estimate can be wrong, so the size comes with an error band
(``error``): ``GROWTH_ERROR`` of what was added once the growth is learned (and what the
framing of the step it was learned on may have moved it), ``ESTIMATE_ERROR`` of it before and
of what a layer removed (a rate not learned on that content), plus ``SLACK`` tokens of
framing. A layer's figure of what it freed carries the same band. The pipeline
asks the API to count only when a threshold it acts on lies inside that band (§9.5: Claude
Code works the same way, the last usage plus an estimate of what was added since, and counts
only near a decision).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from s1_loop import reported_tokens

MIN_GROWTH = 200
"""Estimated tokens a request must have added for its usage to calibrate the growth: a short
reply alone is mostly framing and rounding."""
GROWTH_ERROR = 0.3
"""The largest error of the calibrated growth, as a share of what it sizes: 27.4 % on the
reference runs, where the newest content is of another kind than the growth was learned on
(``python -m ctxlab.bench.sizing``; docs/bench.md)."""
ESTIMATE_ERROR = 0.5
"""The same before the growth is learned: the plain estimate's error on unseen text (§9.5's
fitted weights are within a few percent on the fixtures; this leaves room for other kinds)."""
SLACK = 256
"""Tokens of framing and rounding any size from the estimate may be off by."""


@dataclass
class Calibration:
    """The messages' ratio and the last usage, to size a request before it is sent."""

    ratio: float = 1.0  # counted / estimated tokens of the messages (§9.5)
    sent: tuple[Any, float] | None = None  # (usage known when sending, messages' estimate)
    reported: tuple[int, float] | None = None  # (reported size, estimate of its messages)
    growth: float | None = None  # reported / estimated growth between untouched requests
    grown: bool = False  # whether the request sent since ``reported`` only added messages
    added: tuple[int, float] = (0, 0.0)  # every growth so far: (reported, estimated) tokens
    step: float = 0.0  # estimated tokens of the growth ``growth`` was learned on

    def learn(self, usage: Any) -> None:
        """Take the usage of the last request sent, once it has arrived."""
        if self.sent is not None and usage is not None and usage is not self.sent[0]:
            now = (reported_tokens(usage), self.sent[1])
            if self.reported is not None and self.grown:
                added, estimated = now[0] - self.reported[0], now[1] - self.reported[1]
                if estimated >= MIN_GROWTH and added > 0:
                    self.growth, self.step = added / estimated, estimated
                    self.added = (self.added[0] + added, self.added[1] + estimated)
            self.reported, self.sent, self.grown = now, None, True

    def rate(self, change: float) -> float:
        """Reported tokens per estimated token of a ``change`` to the messages: for what is
        added, the growth (content like the newest); for what a layer removes (older
        content, of any kind), the mean of every growth so far; the messages' ratio until
        a growth is learned."""
        if self.growth is None:
            return self.ratio
        return self.growth if change > 0 else self.added[0] / self.added[1]

    def unseen(self, fixed: int) -> int:
        """What the last usage held beyond its messages; ``fixed`` (the estimate of the system
        prompt and tools the layer sees) until a usage has been reported."""
        if self.reported is None:
            return fixed
        size, messages = self.reported
        return max(0, size - round(self.ratio * messages))

    def size(self, estimate: float, fixed: int) -> int:
        """The request's size from the estimate of its messages: the last reported size plus
        the calibrated change since (grown or, after a layer, shrunk)."""
        if self.reported is not None:
            size, messages = self.reported
            return size + round(self.rate(estimate - messages) * (estimate - messages))
        return round(self.ratio * estimate) + self.unseen(fixed)

    def error(self, estimate: float, fixed: int) -> int:
        """How far ``size(estimate, fixed)`` may be from the API's figure: the share of the
        part sized from the estimate (all of it before any usage) that its rate may be off
        by, plus ``SLACK``."""
        if self.reported is None:
            return SLACK + round(ESTIMATE_ERROR * self.size(estimate, fixed))
        return self.change_error(estimate - self.reported[1])

    def change_error(self, change: float) -> int:
        """How far the calibrated size of a ``change`` to the messages (``rate(change)`` times
        it) may be off: the error band of what was added since the last usage, or of what a
        layer reports freed. Content added is sized at the growth learned on the newest
        (``GROWTH_ERROR``), which the ``SLACK`` its usage may hold beyond the messages moves
        by up to ``SLACK / step``: a growth learned on a short step is uncertain. Content
        removed is older content of any kind, sized at the mean of every growth, a rate not
        learned on it: the plain estimate's error (``ESTIMATE_ERROR``)."""
        if self.growth is None or change <= 0:
            return SLACK + round(ESTIMATE_ERROR * self.rate(change) * abs(change))
        return SLACK + round((GROWTH_ERROR * self.growth + SLACK / self.step) * change)

    def counted(self, tokens: int, estimate: float) -> None:
        """Learn the ratio from the API's count of messages whose estimate is ``estimate``."""
        if tokens > 0 and estimate > 0:
            self.ratio = tokens / estimate

    def changed(self) -> None:
        """A layer changed the history: the next usage is not the last one grown."""
        self.grown = False
