"""Two messages that differ only by their breakpoints (``cache_control``, §6.4) say the same.

A breakpoint is the context layer's own mark on the history it sends: stage 5 takes every one
off before each request and sets its own (``mark_newest``, ``mark_anchor``), and neither the
estimate nor the band's reads look at it. The loop appends to what was sent, so last turn's
newest message comes back with the breakpoint on it; for the bench's incremental turn
(``ctxlab.incremental``) it is the message it was.
"""

from __future__ import annotations

from typing import Any


def same_content(message: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether two messages are equal but for their breakpoints (``cache_control``): a
    breakpoint is the layer's own mark, which ``mark`` takes off every message and sets
    again, so the one message is done as the other was."""
    if message == other:
        return True
    content, before = message["content"], other["content"]
    return (isinstance(content, list) and isinstance(before, list)
            and len(content) == len(before) and message.keys() == other.keys()
            and all(message[k] == other[k] for k in message if k != "content")
            and all(a == b or _unmarked(a) == _unmarked(b)
                    for a, b in zip(content, before, strict=True)))


def _unmarked(block: Any) -> Any:
    """A block without its breakpoint."""
    return {k: v for k, v in block.items() if k != "cache_control"} \
        if isinstance(block, dict) else block
