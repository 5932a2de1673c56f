"""What a ``ctxlab`` process loads once, kept out of the cyclic garbage collector's way (issue 49).

A command imports a few hundred thousand objects (the SDK's types above all) that live as long
as the process. The collector can free none of them, yet it walks them all: in the full
collections their own loading sets off (about a tenth of the start-up), in those a long replay
sets off (about 0.15 s each), and once more when the process exits (about 0.3 s). So a command
loads its modules with the collector held back (``loading``), then sets everything alive aside
for the rest of its run (``set_aside``: ``gc.freeze``); what the command makes afterwards is
collected as before. Processes forked from it (``ctxlab replay --jobs``) inherit the setting
aside, so their collections do not touch those objects, nor copy their memory by doing so.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_open = [0]  # how many ``set_aside`` blocks are open


@contextmanager
def loading() -> Iterator[None]:
    """The collector held back inside the block (modules loading), as it was afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def set_aside(*, release: bool = True) -> Iterator[None]:
    """The objects alive now set aside from the collector inside the block (``gc.freeze``).
    The outermost block puts them back at its end (``gc.unfreeze``), for a caller that goes
    on (tests, notebooks), unless ``release`` is false: the process ends with the block, and
    putting them back would only make its exit walk them all once more. A block inside an
    open one changes nothing: what the outer block's run made since (a finished replay's
    garbage, say) stays the collector's to free. Each replay opens one (``replay.run``), so a
    replay called from a test or a notebook walks only what it made, as under ``ctxlab``."""
    if not _open[0]:
        gc.freeze()
    _open[0] += 1
    try:
        yield
    finally:
        _open[0] -= 1
        if release and not _open[0]:
            gc.unfreeze()
