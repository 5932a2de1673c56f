"""What the memories of a history hold on to (``ctxlab.incremental``, the replay).

The history a layer is given grows at its end and, now and then, has a few old messages
replaced (a batch of clearing): a value worked out for a message object holds while that
object is in the history (``ByObject``). A memory the layer holds calls back into the layer
without holding it (``OfLayer``), so that no cycle waits for the collector. The band's reads,
each read once per message, are ``ctxlab.sharedreads``. As everywhere in the workbook, a
message object edited in place is not seen: a layer replaces a message, it does not edit it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

Messages = list[dict[str, Any]]


class ByObject:
    """One value per message object (the replay's sizes, a turn's estimate shares), computed
    once while that object is in the history: an entry keeps its message, so an id reused by
    a new object is never taken for the old one. ``forget`` drops the entries of messages no
    longer in the history, once they outnumber it."""

    def __init__(self) -> None:
        self.known: dict[int, tuple[dict[str, Any], Any]] = {}

    def get(self, message: dict[str, Any], compute: Callable[[dict[str, Any]], Any]) -> Any:
        """``compute(message)``, the first time this message object is asked for."""
        entry = self.known.get(id(message))
        if entry is None or entry[0] is not message:
            entry = self.known[id(message)] = (message, compute(message))
        return entry[1]

    def forget(self, messages: Messages) -> None:
        """Keep only the entries of ``messages``, when the others are many."""
        if len(self.known) > 2 * len(messages) + 64:
            self.known = {id(m): e for m in messages
                          if (e := self.known.get(id(m))) is not None and e[0] is m}


class OfLayer:
    """A call on ``layer`` made without holding it: ``function(layer, *args)`` through a weak
    reference. The layer holds what calls it (its reads, the incremental steps); a strong
    reference back would make a cycle that only the cyclic collector frees, and every memo
    the layer kept would wait for a full collection. Pickled with the layer (runs are)."""

    def __init__(self, layer: Any, function: Callable[..., Any]) -> None:
        self.layer, self.function = weakref.ref(layer), function

    def __call__(self, *args: Any) -> Any:
        return self.function(self.layer(), *args)

    def __reduce__(self) -> tuple[Any, ...]:
        return OfLayer, (self.layer(), self.function)


def of_layer(layer: Any, name: str) -> Callable[..., Any]:
    """``layer.name`` without a reference to ``layer`` when it is one of its methods
    (``OfLayer``); any other callable as it is."""
    found = getattr(layer, name)
    if getattr(found, "__self__", None) is layer and hasattr(found, "__func__"):
        return OfLayer(layer, found.__func__)
    return found
