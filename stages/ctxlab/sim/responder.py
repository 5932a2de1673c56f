"""The pluggable "model" behind the simulator (DESIGN §3–4).

The simulator validates a request, applies server-side edits, prices it and caches it; what the
model *says* comes from a responder. A responder sees only the request (``ModelView``): the
model is stateless, so the same view must always produce the same reply.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from .covers import covers
from .instance import instance


@dataclass(frozen=True)
class ModelView:
    """What the model sees: the request after merging turns and applying server-side edits.

    ``messages`` have list content (strings are turned into one text block) and consecutive
    same-role messages merged (R3). ``system`` is a list of text blocks.
    """

    model: str
    system: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    tool_choice: dict[str, Any]
    thinking: dict[str, Any] | None
    max_tokens: int
    body: dict[str, Any] = field(repr=False, default_factory=dict)
    input_tokens: int = 0
    """The request's rendered input tokens (0 when the view was built without rendering)."""
    window: int = 0
    """The model's context window: ``input_tokens / window`` is the request's occupancy."""
    spans: tuple[tuple[int, int], ...] = field(repr=False, default=())
    """(first token, tokens) of each system block, then of each message block, in order."""

    @cached_property  # the view is never changed: the simulator and the brain both ask
    def digest(self) -> str:
        """A stable hash of everything visible, for seeding deterministic choices.

        ``cache_control`` is left out: it tells the server what to cache and the model never
        sees it, so the same conversation gets the same answer (and the same tool_use ids)
        whether or not the client marks breakpoints.
        """
        visible = [self.model, self.system, self.messages, self.tools, self.tool_choice,
                   self.thinking]
        raw = json.dumps(_unmarked(visible), sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(raw.encode()).hexdigest()

    @property
    def thinking_enabled(self) -> bool:
        return bool(self.thinking) and self.thinking.get("type") in ("enabled", "adaptive")

    @property
    def tools_allowed(self) -> bool:
        return bool(self.tools) and self.tool_choice.get("type") != "none"

    def offers(self, name: str) -> bool:
        """Whether the model may call the tool ``name`` here: offered, and ``tool_choice`` allows
        tools (``tool`` allows only the one it names)."""
        choice = self.tool_choice
        if not self.tools_allowed or (choice.get("type") == "tool" and choice.get("name") != name):
            return False
        return any(tool.get("name") == name for tool in self.tools)


def _unmarked(value: Any) -> Any:
    """A copy of ``value`` with every ``cache_control`` key left out."""
    if isinstance(value, list):
        return [_unmarked(item) for item in value]
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    return value


@dataclass
class Reply:
    """A model answer. ``content`` holds text, tool_use and thinking blocks.

    ``tool_use`` blocks may omit ``id`` and ``thinking`` blocks ``signature``: the simulator
    fills both deterministically. ``stop_reason`` defaults to ``tool_use`` when a tool is
    called and ``end_turn`` otherwise.
    """

    content: list[dict[str, Any]]
    stop_reason: str | None = None


class Responder(Protocol):
    """Anything that can answer a ModelView."""

    def respond(self, view: ModelView) -> Reply: ...

    def summarize(self, view: ModelView, instructions: str | None) -> str:
        """The text of a server-side ``compaction`` block (R33)."""
        ...


class EchoResponder:
    """A trivial deterministic responder: says what it received.

    It is what the simulator uses when no agent is plugged in. It calls a tool only when the
    last user text asks for an offered custom tool (``covers``: names it, or asks about its
    subject, as "What is the weather in SF?" does for ``get_weather``) and is not an answer to
    tool calls, with an input built from the tool's schema and the numbers and words of that
    text; so "use add for 2 and 3" calls ``add`` with 2 and 3, and the results get a text reply.
    """

    def respond(self, view: ModelView) -> Reply:
        last = view.messages[-1] if view.messages else {"content": []}
        texts = [b.get("text", "") for b in last.get("content", []) if b.get("type") == "text"]
        said = " ".join(t for t in texts if t).strip() or "(no text)"
        n_results = sum(1 for b in last.get("content", []) if b.get("type") == "tool_result")
        parts = [f"Received {len(view.messages)} message(s)."]
        if n_results:
            parts.append(f"{n_results} tool result(s) noted.")
        parts.append(f"Last user text: {said[:200]}")
        content: list[dict[str, Any]] = []
        if view.thinking_enabled:
            note = f"Reading the request {view.digest[:8]}."
            content.append({"type": "thinking", "thinking": note})
        content.append({"type": "text", "text": " ".join(parts)})
        named = [t for t in view.tools if not n_results and covers(t, said)]
        if named and view.offers(named[0]["name"]):
            schema = named[0].get("input_schema") or {"type": "object"}
            value = instance(schema, [said])
            content.append({"type": "tool_use", "name": named[0]["name"],
                            "input": value if isinstance(value, dict) else {}})
        return Reply(content)

    def summarize(self, view: ModelView, instructions: str | None) -> str:
        lines = []
        for i, message in enumerate(view.messages):
            for block in message.get("content", []):
                if block.get("type") == "text" and block.get("text"):
                    lines.append(f"[{i}:{message['role']}] {block['text'][:120]}")
        return "Summary of the conversation so far:\n" + "\n".join(lines[-20:])
