"""The cyclic garbage collector held back while the simulator answers one request (issue 49).

A request arrives as JSON and is decoded into tens of thousands of dicts, lists and strings
(a long history: one per block and field), which the simulator reads and then drops; reference
counting frees every one of them when the answer goes back. Left running, the cyclic collector
sees them in the middle, while they are still alive, promotes them as long-lived and then walks
the whole heap (the caller's history, the tokenizer's tables, the simulator's caches) to find
none of them garbage: on a long replay that was a quarter of its CPU. So ``paused`` holds the
collector back for the length of one request, and it runs again afterwards as before. Nothing
the simulator answers depends on it: the collector only frees cycles, and none are made here.
A replay, which sends a thousand such requests, also sets aside what was alive before it
(``frozen``), so that the full passes it still triggers walk only what it made.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_resume = False


@contextmanager
def paused() -> Iterator[None]:
    """Hold the collector back inside the block. Nested and concurrent holders share one
    pause: the last to leave turns it back on, and only if it was on when the first came in."""
    global _holders, _resume
    with _lock:
        if _holders == 0:
            _resume = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _resume:
                gc.enable()
