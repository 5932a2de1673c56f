"""The agent's tool calls as it made them, whatever a layer did to the history since (DESIGN §4
"Retrieval"; guide §4).

The simulator derives a tool call's id from the request's bytes, so the same call has another
id under another layer: a draw keyed on the id would differ from layer to layer. ``CallLog``
names each call by what it asked (the tool and its input) and how many identical calls the
agent had made before it in the session, counted as the calls first show up in a request. A
call made again after a summary dropped the first one is the next of its kind, not the first
again, so it has a draw of its own; a request sent twice names its calls the same way.

The model is not the client: when the client crashes and resumes its session, the log carries
on from the calls the session made before (``replay``, from the journal's record of every
message), so the resumed run draws what the uninterrupted one would.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ..sim import ModelView


class CallLog:
    """tool_use id → what the call asked and its number among identical calls."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self._made: Counter[str] = Counter()
        self._read: str | None = None  # the digest of the request read last

    def read(self, view: ModelView) -> dict[str, str]:
        """The names of every call in ``view``, the new ones numbered in the order they show.
        A request is read once: the brain asks for each fact it needs and for the reply's
        length, and every answer is the same."""
        if view.digest != self._read:
            self.replay(view.messages)
            self._read = view.digest
        return self.names

    def replay(self, messages: list[dict[str, Any]]) -> dict[str, str]:
        """The names of every call in ``messages`` (a request's, or every message a session
        sent so far), the new ones numbered in the order they show."""
        for message in messages:
            for block in message["content"] if isinstance(message["content"], list) else ():
                ident = str(block.get("id"))
                if block.get("type") == "tool_use" and ident not in self.names:
                    asked = json.dumps([block.get("name"), block.get("input")], sort_keys=True)
                    self.names[ident] = f"{asked}#{self._made[asked]}"
                    self._made[asked] += 1
        return self.names

    def __len__(self) -> int:
        """How many calls the agent has made so far (that showed up in a request)."""
        return len(self.names)
