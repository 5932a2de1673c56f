"""LangChain's ``trim_messages`` as a context layer, used alone on stage 1's loop (guide §7.2).

``trim_messages(strategy="last", ...)`` keeps the newest messages that fit ``max_tokens`` as its
token counter counts them (here ``count_tokens_approximately``, the docs' fast choice: it
re-counts the whole history on every turn). Two settings:

- ``docs``: as LangChain's guide shows it for chat history — ``start_on="human"``,
  ``end_on=("human", "tool")``. In a tool loop the kept tail holds no human message once the
  task scrolls out, so it returns an empty list and the API rejects the request;
- ``pairs``: the task message kept first, the rest trimmed with ``start_on="ai"``, so the tail
  starts at an assistant turn and every ``tool_result`` keeps its ``tool_use`` (§9.2).

The budget is ``share`` of the window (LangChain's own examples trigger at 0.8).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import trim_messages
from langchain_core.messages.utils import count_tokens_approximately

from ..session import Session
from .convert import Messages, to_anthropic, to_langchain

SETTINGS = ("docs", "pairs")


class Trim:
    """``trim_messages`` before every request; results are admitted unchanged."""

    def __init__(self, setting: str = "docs", share: float = 0.8) -> None:
        if setting not in SETTINGS:
            raise ValueError(f"unknown setting {setting!r}; choose one of {SETTINGS}")
        self.setting = setting
        self.share = share

    def prepare(self, messages: Messages, session: Session) -> Messages:
        budget = int(self.share * session.window) - session.max_tokens
        chain = to_langchain(messages)
        if self.setting == "docs":
            kept = trim_messages(chain, max_tokens=budget, strategy="last",
                                 token_counter=count_tokens_approximately, start_on="human",
                                 end_on=("human", "tool"), include_system=True)
            trimmed = to_anthropic(kept, messages)
        else:
            head = to_langchain(messages[:1])
            kept = trim_messages(chain[len(head):], max_tokens=budget - _size(head),
                                 strategy="last", token_counter=count_tokens_approximately,
                                 start_on="ai", end_on=("human", "tool"))
            trimmed = to_anthropic([*head, *kept], messages)
        if len(trimmed) < len(messages):
            freed = _size(chain) - _size(to_langchain(trimmed))
            session.report("langchain-trim", freed, f"trim_messages kept {len(trimmed)} of "
                           f"{len(messages)} messages")
        return trimmed

    def admit(self, results: Messages, session: Session) -> Messages:
        return results


def _size(messages: list[Any]) -> int:
    return count_tokens_approximately(messages) if messages else 0


def make_layer(setting: str = "docs", share: float = 0.8) -> Trim:
    """The ``--layer`` factory: ``ctxlab.peers.trim:make_layer``."""
    return Trim(setting, share)
