"""Reading a history for the loss manifest: tool results, user texts, images, summaries.

A ``View`` of a history sorts its text into what the user side shows plainly and what only a
summary carries. A summary is recognised by the summarizer's own reply (``summary_core``:
``<analysis>`` dropped, ``<summary>`` unwrapped), or as a server-side ``compaction`` block.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

Messages = list[dict[str, Any]]

_SEPARATOR = "\x00"
_ANALYSIS = re.compile(r"<analysis>.*?(?:</analysis>|$)", re.S)
_SUMMARY = re.compile(r"<summary>(.*?)(?:</summary>|$)", re.S)


def blocks_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content", [])
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)]


def result_text(block: dict[str, Any]) -> str:
    """The text of a tool_result: its string content, or its text blocks joined by newlines."""
    content = block.get("content", "")
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content
                         if isinstance(b, dict) and b.get("type") == "text")
    return str(content)


def image_key(block: dict[str, Any]) -> str:
    raw = json.dumps(block.get("source", {}), sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def images_in(blocks: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for block in blocks:
        if block.get("type") == "image":
            found.append(block)
        elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
            found += [b for b in block["content"] if isinstance(b, dict)
                      and b.get("type") == "image"]
    return found


def summary_core(reply: str) -> str:
    """The summary a summarizer's reply holds: ``<analysis>`` dropped, ``<summary>`` unwrapped."""
    text = _ANALYSIS.sub("", reply)
    inside = _SUMMARY.search(text)
    return (inside.group(1) if inside else text).strip()


class View:
    """One history as the manifest reads it: summary texts apart from everything else."""

    def __init__(self, messages: Messages, summaries: Iterable[str] = ()) -> None:
        cores = [c[:200] for c in (summary_core(s) for s in summaries) if c]
        self.messages = messages
        self.summary: list[str] = []
        self.plain: list[str] = []  # user-side text blocks that are not summaries
        self.results: dict[str, str] = {}
        self.images: set[str] = set()
        for message in messages:
            blocks = blocks_of(message)
            if any(b.get("type") == "image" or isinstance(b.get("content"), list)
                   for b in blocks):
                self.images.update(image_key(b) for b in images_in(blocks))
            for block in blocks:
                kind = block.get("type")
                if kind == "tool_result":
                    self.results[str(block.get("tool_use_id"))] = result_text(block)
                elif kind == "compaction":
                    self.summary.append(str(block.get("content", "")))
                elif kind == "text" and message.get("role") == "user":
                    text = str(block.get("text", ""))
                    if any(core in text for core in cores):
                        self.summary.append(text)
                    else:
                        self.plain.append(text)
        self._joined: dict[int, str] = {}
        self._everything: list[str] | None = None

    @property
    def everything(self) -> list[str]:
        """All text: every text block, tool input and tool result."""
        if self._everything is None:
            self._everything = [
                json.dumps(b.get("input", {}), ensure_ascii=False) if b.get("type") == "tool_use"
                else result_text(b) if b.get("type") == "tool_result"
                else str(b.get("text", "")) for m in self.messages for b in blocks_of(m)
                if b.get("type") in ("text", "tool_use", "tool_result")]
        return self._everything

    def _within(self, text: str, blocks: list[str]) -> bool:
        """Whether one of ``blocks`` contains ``text``: one search over the blocks joined (a
        match cannot span two of them unless ``text`` holds the separator)."""
        if _SEPARATOR in text:
            return any(text in block for block in blocks)
        joined = self._joined.get(id(blocks))
        if joined is None:
            joined = self._joined[id(blocks)] = _SEPARATOR.join(blocks)
        return text in joined

    def shows(self, text: str) -> bool:
        """``text`` verbatim in a user-side block that is not a summary."""
        return self._within(text, self.plain)

    def summarizes(self, text: str) -> bool:
        return bool(text) and self._within(text, self.summary)

    def mentions(self, text: str) -> bool:
        return bool(text) and self._within(text, self.everything)
