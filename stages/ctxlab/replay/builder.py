"""Turning conversation lines into Messages API history (real-transcripts §4.2–4.3, §5 steps
3–4; guide §9.2 pairing).

Claude Code logs one content block per line. The lines of one response share ``message.id``
and may be interleaved with tool results (streaming tool execution); results may arrive out of
call order; a resumed session re-logs earlier lines with new uuids. Walking the file in order:

- an assistant line joins the open response when its id is that response's; a new id right
  after a response (no user content between) joins it too, so roles keep alternating; a new id
  after user content closes the response and opens the next; an id already closed is a
  re-logged copy and is dropped, as is a ``tool_use`` id seen before or a block the open
  response already holds (a copy of the last response arrives while it is still open);
- a tool result is kept once, for a call of the open response; user text closes the response
  (later lines with its id are copies) and is dropped when the same block with the same
  timestamp was seen before (resumed sessions re-log prompts too);
- when a response closes, its user message is built: results first, in call order — a call
  with no result gets a synthetic error result — then the user's own blocks (§9.2).

``<synthetic>`` assistant lines are written by the client (an API error, "No response
requested."), never by the model, and carry no usage: they are dropped and counted.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ctxlab import models

from .blocks import Block, as_blocks, clean, synthetic_result
from .lines import Entry, seconds

CLIENT_MODEL = models.NOT_A_MODEL  # a message the client wrote itself (an API error, say)
PLACEHOLDER = ("[replay] the session log starts with an assistant message; this placeholder "
               "stands for the request that produced it")


@dataclass
class Recorded:
    """What the log says about one assistant message: its model, the last usage logged, and
    when its first line was written (seconds since the epoch)."""

    model: str | None = None
    usage: dict[str, Any] | None = None
    at: float | None = None


@dataclass
class _Response:
    """An assistant message being assembled, with what has arrived to answer it."""

    ids: list[str]
    blocks: list[Block] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    results: dict[str, Block] = field(default_factory=dict)
    extras: list[Block] = field(default_factory=list)
    recorded: Recorded = field(default_factory=Recorded)


def _fingerprint(timestamp: Any, block: Block) -> str:
    raw = json.dumps([timestamp, block], sort_keys=True, ensure_ascii=False)
    return hashlib.sha1(raw.encode()).hexdigest()


@dataclass
class Builder:
    """Feed it conversation entries in file order, then call ``finish()``."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    recorded: dict[int, Recorded] = field(default_factory=dict)  # by assistant message index
    duplicates: int = 0
    orphan_results: int = 0
    blocks_dropped: int = 0
    client_messages: int = 0
    synthetic_results: list[str] = field(default_factory=list)
    placeholder: bool = False
    _open: _Response | None = None
    _closed: set[str] = field(default_factory=set)
    _calls: set[str] = field(default_factory=set)
    _results: set[str] = field(default_factory=set)
    _user_seen: set[str] = field(default_factory=set)

    def add(self, entry: Entry) -> None:
        """Take one ``user`` or ``assistant`` line."""
        message = entry.data["message"]
        if entry.type == "assistant":
            self._assistant(entry, message)
        else:
            self._user(entry, message)

    def _assistant(self, entry: Entry, message: dict[str, Any]) -> None:
        if message.get("model") == CLIENT_MODEL:
            self.client_messages += 1
            return
        mid = str(message.get("id") or f"line-{entry.line}")
        if mid in self._closed:
            self.duplicates += 1
            return
        response = self._open
        if response is None or (mid not in response.ids and (response.results
                                                             or response.extras)):
            self._flush()
            response = self._open = _Response([mid])
            response.recorded.at = seconds(entry.data.get("timestamp"))
        elif mid not in response.ids:
            response.ids.append(mid)
        copies = 0
        for raw in as_blocks(message.get("content")):
            block = clean(raw)
            if block is None:
                self.blocks_dropped += 1
            elif block in response.blocks or (block["type"] == "tool_use"
                                              and block["id"] in self._calls):
                copies += 1
            else:
                if block["type"] == "tool_use":
                    self._calls.add(block["id"])
                    response.calls.append(block["id"])
                response.blocks.append(block)
        if copies:
            self.duplicates += 1
        response.recorded.model = message.get("model") or response.recorded.model
        if isinstance(message.get("usage"), dict):
            response.recorded.usage = message["usage"]

    def _user(self, entry: Entry, message: dict[str, Any]) -> None:
        response, timestamp = self._open, entry.data.get("timestamp")
        fresh: list[Block] = []
        copies = 0
        for raw in as_blocks(message.get("content")):
            block = clean(raw)
            if block is None:
                self.blocks_dropped += 1
            elif block["type"] == "tool_result":
                call = block["tool_use_id"]
                if call in self._results:
                    copies += 1
                elif response is not None and call in response.calls:
                    response.results[call] = block
                    self._results.add(call)
                else:
                    self.orphan_results += 1
            else:
                key = _fingerprint(timestamp, block) if timestamp else None
                if key is not None and key in self._user_seen:
                    copies += 1
                    continue
                if key is not None:
                    self._user_seen.add(key)
                fresh.append(block)
        if not fresh:
            self.duplicates += bool(copies)
            return
        if response is None:
            self._append("user", fresh)
        else:
            response.extras.extend(fresh)
            self._closed.update(response.ids)

    def _append(self, role: str, blocks: list[Block]) -> None:
        if self.messages and self.messages[-1]["role"] == role:
            self.messages[-1]["content"].extend(blocks)
        else:
            self.messages.append({"role": role, "content": list(blocks)})

    def _flush(self) -> None:
        response, self._open = self._open, None
        if response is None:
            return
        self._closed.update(response.ids)
        answer = list(response.extras)
        if response.blocks:
            if not self.messages:
                self.placeholder = True
                self._append("user", [{"type": "text", "text": PLACEHOLDER}])
            self._append("assistant", response.blocks)
            self.recorded[len(self.messages) - 1] = response.recorded
            missing = [c for c in response.calls if c not in response.results]
            self.synthetic_results += missing
            answer = [response.results.get(c) or synthetic_result(c)
                      for c in response.calls] + answer
        if answer:
            self._append("user", answer)

    def finish(self) -> list[dict[str, Any]]:
        """Close the last response and return the history."""
        self._flush()
        return self.messages
