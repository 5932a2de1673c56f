"""The contract between the agent loop and a context layer (guide §5, §14).

The loop (stage 1) owns the conversation; a context layer (stages 2–5) gets two hooks:
``prepare`` runs before every request and returns the history to use from then on (truncated,
offloaded, summarized…); ``admit`` sees new tool results before they enter the history. Both
receive the ``Session``: the model, the window, the tools, the workspace, and ``create()`` —
the one way to call the model, so every call (agent or summarizer) is metered the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import anthropic

from . import models
from .telemetry import Compaction

Observer = Callable[[str, list[dict[str, Any]], Any, BaseException | None], None]
"""Called after every model call with (kind, messages sent, response or None, error)."""


@dataclass
class Session:
    """One run's shared facts and the metered way to call the model."""

    client: anthropic.Anthropic
    model: str
    system: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    workspace: Path
    max_tokens: int = 4096
    observer: Observer | None = None
    last_usage: Any = None
    events: list[Compaction] = field(default_factory=list)
    tool_names: dict[str, str] = field(default_factory=dict)  # tool_use id → tool name
    now: Callable[[], float] = time.monotonic  # the run's clock (simulated offline)
    dynamic: Callable[[], str] | None = None  # the harness's volatile context (ctxlab.dynamic)
    dynamic_at_end: bool = False  # send it after the newest message instead of in ``system``
    recover: Callable[[list[dict[str, Any]], anthropic.APIError], Any] | None = None
    """A layer's last resort for a rejected agent request: returns a response or raises."""
    counts: int = 0  # ``count`` calls since the runner last read them (telemetry)

    @property
    def window(self) -> int:
        """The model's context window in tokens."""
        return models.get(self.model).context_window

    def create(self, messages: list[dict[str, Any]], *, kind: str = "agent",
               **params: Any) -> Any:
        """``client.messages.create`` with this session's defaults, reported to the observer.

        ``params`` override the defaults (a summarizer passes its own ``system``,
        ``tool_choice`` or ``max_tokens``). The harness's volatile context, when there is
        one, goes after ``system`` as a block of its own — or, with ``dynamic_at_end``, after
        the newest message of an agent request, past every cache breakpoint (only on the
        wire: the history does not keep it). API errors are reported, then raised.
        """
        system, wire = self.wire(messages, kind)
        request: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens,
                                   "system": system, "tools": self.tools}
        request.update(params)
        try:
            response = self.client.messages.create(messages=wire, **request)
        except anthropic.APIError as error:
            if self.observer:
                self.observer(kind, messages, None, error)
            if kind == "agent" and self.recover is not None:
                return self.recover(messages, error)
            raise
        if kind == "agent":
            self.last_usage = response.usage
            self.tool_names.update({b.id: b.name for b in response.content
                                    if b.type == "tool_use"})
        if self.observer:
            self.observer(kind, messages, response, None)
        return response

    def wire(self, messages: list[dict[str, Any]],
             kind: str = "agent") -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(system, messages) as ``create`` sends them, the volatile context in its place;
        the observer still sees the history as the layer made it."""
        text = self.dynamic() if self.dynamic is not None else ""
        block = {"type": "text", "text": text}
        system = [*self.system, block] if text and not self.dynamic_at_end else self.system
        if text and self.dynamic_at_end and kind == "agent" and messages:
            last = messages[-1]["content"]
            last = [{"type": "text", "text": last}] if isinstance(last, str) else last
            return system, [*messages[:-1], dict(messages[-1], content=[*last, block])]
        return system, messages

    def count(self, messages: list[dict[str, Any]]) -> int:
        """The API's own count of ``messages`` alone (``count_tokens``: free, not a model
        call; no system prompt, no tools), for a layer that must know what it removes (§9.5).
        API errors are raised at once, without the SDK's retries: a layer that cannot count
        falls back on its estimate rather than wait."""
        self.counts += 1
        client = self.client.with_options(max_retries=0)
        return client.messages.count_tokens(model=self.model, messages=messages).input_tokens

    def report(self, layer: str, tokens_freed: int, trigger: str,
               freed_error: int = 0) -> None:
        """Record that a context-layer mechanism fired (§12.6, §12.8). A layer that sizes
        what it freed from an estimate says how far it may be off (``freed_error``, tokens);
        0, the default, says it is a count."""
        event: dict[str, Any] = {"layer": layer, "tokens_freed": int(tokens_freed),
                                 "trigger": trigger}
        if freed_error:
            event["freed_error"] = int(freed_error)
        self.events.append(event)


class ContextLayer(Protocol):
    """What stages 2–5 plug into the loop."""

    def prepare(self, messages: list[dict[str, Any]],
                session: Session) -> list[dict[str, Any]]: ...

    def admit(self, results: list[dict[str, Any]],
              session: Session) -> list[dict[str, Any]]: ...
