"""The API's own context management on the bench (API notes §5–§6, guide §6.6).

A run can ask the API to clear tool results or compact the prompt itself, through the beta
endpoint (``client.beta.messages.create(betas=[...], context_management=...)``). Nothing in the
``Session`` / ``ContextLayer`` contract changes: ``BetaSession`` is a ``Session`` whose
``create`` adds the beta parameters to every call. The runner (``runner.run(server=...)``)
bills what the API reports outside the top-level usage — a server-side compaction's own
iteration (R33, ``compaction_usage``) — and records server edits as compaction events
(``server_events``), so ``RunSummary`` counts them like any layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anthropic

from .session import Session
from .telemetry import Compaction

CLEAR = "clear_tool_uses_20250919"
COMPACT = "compact_20260112"
BETA_FOR = {CLEAR: "context-management-2025-06-27", COMPACT: "compact-2026-01-12"}


@dataclass(frozen=True)
class ServerEdits:
    """The ``context_management.edits`` a client asks the API to apply, and their beta headers."""

    edits: tuple[dict[str, Any], ...] = ()

    @property
    def betas(self) -> list[str]:
        return sorted({BETA_FOR[e["type"]] for e in self.edits})

    def params(self) -> dict[str, Any]:
        """Extra keyword arguments for ``client.beta.messages.create``."""
        if not self.edits:
            return {}
        return {"betas": self.betas, "context_management": {"edits": list(self.edits)}}


class _BetaClient:
    """Looks like a client whose ``messages`` is the beta endpoint (``client.beta.messages``)."""

    def __init__(self, inner: anthropic.Anthropic) -> None:
        self.inner = inner
        self.messages = inner.beta.messages

    def with_options(self, **options: Any) -> _BetaClient:
        return _BetaClient(self.inner.with_options(**options))


@dataclass
class BetaSession(Session):
    """A ``Session`` whose every call carries the server edits (summarizer calls too: a client
    that turns context management on for its requests gets it on all of them)."""

    server: ServerEdits = field(default_factory=ServerEdits)

    def create(self, messages: list[dict[str, Any]], *, kind: str = "agent",
               **params: Any) -> Any:
        return super().create(messages, kind=kind, **{**self.server.params(), **params})


def server_events(response: Any) -> list[Compaction]:
    """Compaction events for what the API did to this request: clearing (R28), compaction
    (R33). Freed tokens are the API's own figures."""
    events: list[Compaction] = []
    managed = getattr(response, "context_management", None)
    for edit in getattr(managed, "applied_edits", None) or []:
        if edit.type == CLEAR:
            events.append({"layer": "server-clear", "tokens_freed": edit.cleared_input_tokens,
                           "trigger": f"API cleared {edit.cleared_tool_uses} tool result(s)"})
    usage = getattr(response, "usage", None)
    for it in getattr(usage, "iterations", None) or []:
        if it.type == "compaction":
            events.append({"layer": "server-compact",
                           "tokens_freed": it.input_tokens - _total_input(usage),
                           "trigger": f"API compacted a {it.input_tokens:,}-token prompt"})
    return events


def _total_input(usage: Any) -> int:
    return (usage.input_tokens + (usage.cache_read_input_tokens or 0)
            + (usage.cache_creation_input_tokens or 0))


def compaction_usage(response: Any) -> list[dict[str, int]]:
    """The usage of each server-side compaction iteration of ``response`` (R33): billed apart,
    at the uncached input price (the API reports no cache fields for it)."""
    usage = getattr(response, "usage", None)
    return [{"input_tokens": it.input_tokens, "output_tokens": it.output_tokens}
            for it in getattr(usage, "iterations", None) or [] if it.type == "compaction"]


def beta_client(client: anthropic.Anthropic, server: ServerEdits) -> Any:
    """``client``, or its beta endpoint when ``server`` asks for edits."""
    return _BetaClient(client) if server.edits else client
