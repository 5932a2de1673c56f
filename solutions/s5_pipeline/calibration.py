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

The size of the request about to be sent is ``ratio × estimate(messages) + unseen``: the last
reported size plus the estimated growth since.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from s1_loop import reported_tokens


@dataclass
class Calibration:
    """The messages' ratio and the last usage, to size a request before it is sent."""

    ratio: float = 1.0  # counted / estimated tokens of the messages (§9.5)
    sent: tuple[Any, float] | None = None  # (usage known when sending, messages' estimate)
    reported: tuple[int, float] | None = None  # (reported size, estimate of its messages)

    def learn(self, usage: Any) -> None:
        """Take the usage of the last request sent, once it has arrived."""
        if self.sent is not None and usage is not None and usage is not self.sent[0]:
            self.reported = (reported_tokens(usage), self.sent[1])
            self.sent = None

    def unseen(self, fixed: int) -> int:
        """What the last usage held beyond its messages; ``fixed`` (the estimate of the system
        prompt and tools the layer sees) until a usage has been reported."""
        if self.reported is None:
            return fixed
        size, messages = self.reported
        return max(0, size - round(self.ratio * messages))

    def size(self, estimate: float, fixed: int) -> int:
        """The request's size from the estimate of its messages."""
        return round(self.ratio * estimate) + self.unseen(fixed)

    def counted(self, tokens: int, estimate: float) -> None:
        """Learn the ratio from the API's count of messages whose estimate is ``estimate``."""
        if tokens > 0 and estimate > 0:
            self.ratio = tokens / estimate
