"""The session a replayed context layer runs in: offline, with a window that can shrink (§14).

It is the ordinary ``ctxlab.session.Session`` with two differences. ``context_window`` overrides
the model's window, so a learner can make a small log force the layers to act (``--window``).
And every call goes to an in-process simulator whose model only writes summaries
(``ReplaySummarizer``): the recorded replies stand in for the agent, so the only calls a replay
makes are a stage-4+ layer's own summary calls — no network, no key. Thinking blocks of the
log are vouched for before they reach the simulator (``signatures``). The cyclic collector
is paused for the whole of each call (``sim.collector``), the SDK's copy and encoding of the
request included: they too make tens of thousands of objects that live only as long as the
call, and a full pass of the collector in the middle would walk the whole heap for nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxlab.session import Observer, Session
from ctxlab.sim import Simulator, make_client
from ctxlab.sim.collector import paused

from .signatures import SignatureBook
from .summarizer import ReplaySummarizer

SYSTEM = ("You are replaying a recorded Claude Code session. The session's own system prompt "
          "and tool definitions are not in its log.")


@dataclass
class ReplaySession(Session):
    """A ``Session`` over the offline summarizer, with an optional smaller window."""

    context_window: int | None = None
    book: SignatureBook | None = None

    @property
    def window(self) -> int:
        """``context_window`` when set, else the model's window."""
        return self.context_window or super().window

    def create(self, messages: list[dict[str, Any]], *, kind: str = "agent",
               **params: Any) -> Any:
        """``Session.create`` with the log's unmodified thinking blocks re-signed."""
        sent = self.book.trusted(messages) if self.book else messages
        with paused():
            return super().create(sent, kind=kind, **params)

    def count(self, messages: list[dict[str, Any]]) -> int:
        """``Session.count`` with the log's unmodified thinking blocks re-signed."""
        with paused():
            return super().count(self.book.trusted(messages) if self.book else messages)


def replay_session(model: str, workspace: Path, *, window: int | None = None,
                   book: SignatureBook | None = None,
                   observer: Observer | None = None) -> ReplaySession:
    """A ``ReplaySession`` on a fresh simulator answering with ``ReplaySummarizer``."""
    client = make_client(Simulator(responder=ReplaySummarizer()))
    return ReplaySession(client, model, [{"type": "text", "text": SYSTEM}], [], workspace,
                         observer=observer, context_window=window, book=book)
