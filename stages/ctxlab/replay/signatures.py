"""Vouching for the thinking blocks of a recorded session, offline (API notes R14, §3.5).

The API accepts the latest assistant message's thinking blocks only exactly as it issued them.
The simulator checks that with its own signatures, so the real signatures of a session log —
signed by Anthropic, or redacted in some archives — never verify offline. Before a replayed
history goes to the simulator (a layer's summary call, the API-rule check), every thinking
block that is still *exactly* as the log recorded it is re-signed as the simulator would have
signed it, at its recorded place in its recorded message. A block a layer edited, dropped or
reordered keeps failing R14, as it would against the real API.
"""

from __future__ import annotations

from typing import Any

from ctxlab.sim import thinking

Messages = list[dict[str, Any]]
Key = tuple[str, str]


def _key(block: dict[str, Any]) -> Key:
    return str(block.get("thinking")), str(block.get("signature"))


class SignatureBook:
    """Where each recorded thinking block sat: (message index, position, count)."""

    def __init__(self, messages: Messages) -> None:
        self.places: dict[Key, tuple[int, int, int]] = {}
        for i, message in enumerate(messages):
            if message["role"] != "assistant":
                continue
            blocks = [b for b in message["content"] if b.get("type") == "thinking"]
            for k, block in enumerate(blocks):
                self.places.setdefault(_key(block), (i, k, len(blocks)))

    def _resign(self, block: dict[str, Any]) -> dict[str, Any]:
        place = self.places.get(_key(block)) if block.get("type") == "thinking" else None
        if place is None:
            return block
        i, k, n = place
        return dict(block, signature=thinking.sign(block, message_id=f"replay-{i}", index=k,
                                                   count=n))

    def trusted(self, messages: Messages) -> Messages:
        """A shallow copy of ``messages`` whose unmodified recorded thinking blocks verify."""
        if not self.places:
            return messages
        out = []
        for message in messages:
            content = message.get("content")
            if message.get("role") == "assistant" and isinstance(content, list) and any(
                    b.get("type") == "thinking" for b in content):
                message = dict(message, content=[self._resign(b) for b in content])
            out.append(message)
        return out
