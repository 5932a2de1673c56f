"""The client that manages nothing but the prompt cache (API notes §5–§6, guide §6.3–§6.6).

To compare who manages the context — the client, the API, a peer library — everything else
must be equal. ``CacheOnly`` only lays out stage 5's cache zones (sorted tools, a cached
static system prompt, one moving breakpoint on the newest block), so the API's own variants,
the cached peers and the oracle are billed with the same prompt caching as stage 5 itself.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ..runner import load_stage
from ..session import Session

Messages = list[dict[str, Any]]


class CacheOnly:
    """No context management at all; stage 5's cache breakpoints only (§6.3–6.4)."""

    def __init__(self) -> None:
        self.zoned = False

    @property
    def zones(self) -> ModuleType:
        """Stage 5's package, whose cache zones this layer uses."""
        return load_stage(5)

    def prepare(self, messages: Messages, session: Session) -> Messages:
        if not self.zoned:
            static = "\n".join(b.get("text", "") for b in session.system)
            session.tools = self.zones.zoned_tools(session.tools)
            session.system = self.zones.zoned_system(static, "")
            self.zoned = True
        return self.zones.mark_newest(messages)

    def admit(self, results: Messages, session: Session) -> Messages:
        return results
