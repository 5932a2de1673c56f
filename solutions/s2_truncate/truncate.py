"""Exercise 2.1 — naive truncation: drop the oldest messages (guide §14 stage 2, first step).

This is the version everyone writes first. It is here to fail: it cuts wherever the count
says, including between an assistant's ``tool_use`` and the user message holding its
``tool_result`` — and the API answers 400 (§9.2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Messages = list[dict[str, Any]]


def naive_truncate(messages: Messages, estimate: Callable[[Messages], int], window: int,
                   *, ratio: float = 0.8, drop: int = 4) -> Messages:
    """While ``estimate(messages)`` exceeds ``ratio × window`` and more than ``drop``
    messages remain, drop the ``drop`` oldest (the guide's ``messages.slice(4)``). Stop when
    ``drop`` or fewer remain, even over the threshold: those are kept whole, so the last
    message is never dropped. Returns a new list; ``messages`` is left as it was.

    >>> def size(history): return 10 * len(history)  # 10 tokens a message
    >>> len(naive_truncate([{}] * 12, size, window=10))  # 120 > 8, 80 > 8, 40 > 8: 4 left
    4
    >>> len(naive_truncate([{}] * 6, size, window=10))  # one drop of 4, then 2 remain
    2
    >>> len(naive_truncate([{}] * 3, size, window=10))  # 3 ≤ drop: nothing is dropped
    3
    """
    ### BEGIN SOLUTION 2.1
    kept = list(messages)
    while estimate(kept) > ratio * window and len(kept) > drop:
        kept = kept[drop:]
    return kept
    ### END SOLUTION
