"""LangChain's ``SummarizationMiddleware`` as a context layer, alone on stage 1's loop (§7.2 ④).

The middleware's ``before_model`` hook runs before every request, as in a LangChain agent:
past its ``trigger`` it asks its model for a summary of all but the last ``keep`` messages
(20 by default), trimmed first to ``trim_tokens_to_summarize`` (4,000 by default, with
``start_on="human"``), and replaces them with the summary. Its model is ``ChatAnthropic``
talking to the bench's own API: every summary call goes through the run's client and is
billed as a ``summary`` call. ``trigger`` has no default (no summary ever); the docs' examples
use a fraction of the window, ``share`` here (0.8).

``cache=True`` adds the same prompt-cache breakpoints stage 5 lays out (``CacheOnly``); the
middleware itself sends no ``cache_control``.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware import SummarizationMiddleware
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import RemoveMessage

from ..session import Session
from .cache_only import CacheOnly
from .convert import Messages, to_anthropic, to_langchain


class _MeteredMessages:
    """``client.messages`` for ChatAnthropic: the run's client, each call shown to the run's
    observer as a ``summary`` call (so the bill counts it)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.with_raw_response = self

    def create(self, **payload: Any) -> Any:
        sent = payload.get("messages", [])
        observer = self.session.observer
        try:
            raw = self.session.client.messages.with_raw_response.create(**payload)
        except Exception as error:
            if observer is not None:
                observer("summary", sent, None, error)
            raise
        if observer is not None:
            observer("summary", sent, raw.parse(), None)
        return raw


class _MeteredClient:
    def __init__(self, session: Session) -> None:
        self.messages = _MeteredMessages(session)


class Summarize:
    """``SummarizationMiddleware.before_model`` before every request."""

    def __init__(self, share: float = 0.8, keep: int = 20,
                 trim_tokens_to_summarize: int | None = 4000) -> None:
        self.share = share
        self.keep = keep
        self.trim = trim_tokens_to_summarize
        self.middleware: SummarizationMiddleware | None = None

    def _built(self, session: Session) -> SummarizationMiddleware:
        if self.middleware is None:
            model = ChatAnthropic(model=session.model, api_key="offline", max_retries=0,
                                  max_tokens=session.max_tokens)
            model.__dict__["_client"] = _MeteredClient(session)  # the run's API, metered
            self.middleware = SummarizationMiddleware(
                model, trigger=("tokens", int(self.share * session.window)),
                keep=("messages", self.keep), trim_tokens_to_summarize=self.trim)
        return self.middleware

    def prepare(self, messages: Messages, session: Session) -> Messages:
        chain = to_langchain(messages)
        update = self._built(session).before_model({"messages": chain}, None)  # type: ignore
        if not update:
            return messages
        kept = [m for m in update["messages"] if not isinstance(m, RemoveMessage)]
        out = to_anthropic(kept, messages)
        session.report("langchain-summary", 0, f"SummarizationMiddleware kept "
                       f"{len(kept) - 1} messages and a summary")
        return out

    def admit(self, results: Messages, session: Session) -> Messages:
        return results


class CachedSummarize(CacheOnly):
    """The middleware with stage 5's cache breakpoints around it."""

    def __init__(self, **options: Any) -> None:
        super().__init__()
        self.inner = Summarize(**options)

    def prepare(self, messages: Messages, session: Session) -> Messages:
        return super().prepare(self.inner.prepare(messages, session), session)


def make_layer(cache: bool = False, share: float = 0.8, keep: int = 20) -> Any:
    """The ``--layer`` factory: ``ctxlab.peers.summarize:make_layer``."""
    return CachedSummarize(share=share, keep=keep) if cache else Summarize(share, keep)
