"""Each turn's per-message work on the history, done once per message: a turn costs what it adds.

Stage 5's ``Pipeline.prepare`` does four things to the whole history before every request:
it applies the frozen decisions (``apply_decisions``, i.e. ``Ledger.apply``), notes the files
the tool calls named (``observe``, stage 4's file log), estimates the messages (``estimate``,
the running sum of §9.5) and moves the breakpoint (``mark``, i.e. ``mark_newest``). Written as
functions of the whole history, they are easy to read and a session costs the square of its
length. ``incremental(layer)`` wraps those four steps of a
layer — the reference or a learner's, whatever its pipeline (``compact``) does — so that a
turn redoes only the messages that are new since the last one. The results are exactly those
of the full functions: the same messages, the same sum in the same order.

``Prepared`` (``prepared``) keeps last turn's results by position and redoes only the
messages new since, or changed.

The band's reads (``s5_pipeline.reads``) are answers made of what each message says on its own,
so they get a memory (``sharedreads.remember_reads``) that keeps last call's history and
answers: a turn compares the history once and reads only the messages new since, each by every
read, and a message a batch of clearing replaced is read again in its place. ``estimate_part``,
the estimate of a part of the history, is the difference of two running sums. The band's look
itself (``microcompact``) keeps last turn's verdicts on the results it looked at: the ones it
left and the ones it would clear (``settled``); and the check after a batch of which of the
user's texts are still shown (``shown``, the texts of the blocks) reads only the messages new
since the last batch, and the calls fetched again and the working copies are kept up to date
from the new calls and cleared ids (``refetched``, ``workingcopy``). The hash of the cache's
prefix is worked out again only when the tools or the system blocks are other objects
(``lastcall``).

Not checked: a message object edited in place after ``prepare`` saw it. The history is
append-only, as the API's own transcript is: to change an old message, put a new message
object in its place.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from .batchcheck import check_changed
from .lastcall import LastCall
from .permessage import of_layer
from .prepared import Prepared
from .refetched import FetchedAgain
from .settled import settle
from .sharedreads import PerMessage, remember_reads
from .workingcopy import EditedReads

Messages = list[dict[str, Any]]


class Layer(Protocol):
    """A layer with stage 5's per-message steps (``s5_pipeline.Pipeline``)."""

    apply_decisions: Callable[[Messages, Any], Messages]
    observe: Callable[[Messages, Any], None]
    estimate: Callable[[Messages], int]
    mark: Callable[[Messages], Messages]


L = TypeVar("L", bound=Layer)


def incremental(layer: L) -> L:
    """``layer`` with its per-message steps done only on what each turn adds (see above)."""
    from s5_pipeline.estimate import message_share, request_tokens

    prepared = Prepared(of_layer(layer, "apply_decisions"), of_layer(layer, "mark"),
                        share=message_share, total=request_tokens)
    layer.apply_decisions, layer.observe, layer.estimate, layer.mark = (
        prepared.apply, functools.partial(_observe_new, of_layer(layer, "observe"), prepared),
        prepared.estimate, prepared.mark)
    if hasattr(layer, "estimate_part"):
        layer.estimate_part = prepared.estimate_part
    if hasattr(layer, "check"):
        layer.check = functools.partial(check_changed, of_layer(layer, "check"), prepared)
    remember_reads(layer)
    if callable(getattr(layer, "fetched_again", None)):
        layer.fetched_again = FetchedAgain()
    if callable(getattr(layer, "edited_reads", None)):
        layer.edited_reads = EditedReads()
    texts = getattr(layer, "user_texts", None)  # the texts put back after a batch (§12.3)
    if callable(getattr(texts, "shown", None)):
        texts.shown = PerMessage(texts.shown)
    if callable(getattr(layer, "prefix_hash", None)):
        layer.prefix_hash = LastCall(layer.prefix_hash)
    settle(layer)
    return layer


def _observe_new(observe: Callable[[Messages, Any], None], prepared: Prepared,
                 messages: Messages, session: Any) -> None:
    """The file log notes each tool call once: last turn's messages were noted then."""
    observe(prepared.new(messages), session)
