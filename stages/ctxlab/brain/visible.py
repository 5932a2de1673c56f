"""What the model can see in one request: texts, tool calls, results, pointers (DESIGN §4).

Everything visible counts: system blocks, message text, tool_use inputs, tool_result contents
(string or block list), compaction summaries, documents and other attachments. Thinking blocks
do not: the API drops them from earlier turns. Searching is done per text and cached, so a
long conversation costs only its new blocks on each turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..scenarios import Call, Scenario
from ..sim import ModelView

POINTER = re.compile(r"\.task_outputs/tool-results/([A-Za-z0-9_\-]+)\.txt")
"""An offloaded result's path as stage 3 writes it, relative to the workspace (§3.2, §7.4)."""
_EXIT = re.compile(r"\[exit code: (\d+)\]\s*$")
_CACHE_CHARS = 50_000_000  # forget cached searches beyond this many characters of text


def normalize(text: str) -> str:
    """Lower case words only (punctuation, quotes and markup become spaces): for rule matching."""
    return " ".join(re.sub(r"[^\w\s]|_", " ", text.casefold()).split())


class Finder:
    """Finds a scenario's markers and constraint texts in a text, with a per-text cache."""

    def __init__(self, scenario: Scenario) -> None:
        marks = {mark for step in scenario.steps for mark in step.marks}
        self.needles = tuple(sorted(marks | set(scenario.facts.values())))
        self.rules = {c.id: normalize(c.text) for c in scenario.constraints}
        self._cache: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        self._cached_chars = 0

    def find(self, text: str) -> tuple[frozenset[str], frozenset[str]]:
        """(markers found, ids of constraints whose text is found) in ``text``."""
        hit = self._cache.get(text)
        if hit is None:
            flat = normalize(text) if self.rules else ""
            hit = (frozenset(n for n in self.needles if n in text),
                   frozenset(cid for cid, rule in self.rules.items() if rule in flat))
            if self._cached_chars > _CACHE_CHARS:
                self._cache.clear()
                self._cached_chars = 0
            self._cache[text] = hit
            self._cached_chars += len(text)
        return hit


@dataclass(frozen=True)
class Pointer:
    """A visible reference to an offloaded tool result and the text around it."""

    tool_use_id: str
    path: str
    context: str


@dataclass
class Visible:
    """The scan of one view."""

    calls: list[tuple[str, Call]] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)
    results: dict[str, tuple[str, bool]] = field(default_factory=dict)
    user_texts: list[str] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)
    pointers: list[Pointer] = field(default_factory=list)
    found: set[str] = field(default_factory=set)
    rules: set[str] = field(default_factory=set)

    def sees(self, marker: str) -> bool:
        return marker in self.found

    def has_call(self, call: Call) -> bool:
        return call.key in self.keys

    def call_by_id(self, tool_use_id: str) -> Call | None:
        return next((call for cid, call in self.calls if cid == tool_use_id), None)

    @property
    def last_call(self) -> Call | None:
        return self.calls[-1][1] if self.calls else None

    def failed(self, tool_use_id: str) -> bool:
        """Whether a visible result reports an error or a non-zero exit code."""
        text, is_error = self.results.get(tool_use_id, ("", False))
        code = _EXIT.search(text)
        return is_error or (code is not None and code.group(1) != "0")


def result_text(content: Any) -> str:
    """The text of a tool_result's content (string or list of blocks; images skipped)."""
    if isinstance(content, str):
        return content
    return "\n".join(_strings(content))


def _strings(value: Any) -> Iterator[str]:
    """Every string inside an attachment-like value, skipping base64 payloads."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict) and value.get("type") not in ("base64", "image"):
        for key, item in value.items():
            if key not in ("type", "cache_control", "media_type"):
                yield from _strings(item)


def scan(view: ModelView, finder: Finder) -> Visible:
    """Scan everything visible in ``view``."""
    seen = Visible()

    def note(texts: Iterable[str]) -> None:
        for text in texts:
            markers, rules = finder.find(text)
            seen.found.update(markers)
            seen.rules.update(rules)
            if ".task_outputs/" in text:
                seen.pointers += [Pointer(m.group(1), m.group(0), text)
                                  for m in POINTER.finditer(text)]

    note(b.get("text", "") for b in view.system)
    for message in view.messages:
        for block in message["content"]:
            kind = block.get("type")
            if kind in ("thinking", "redacted_thinking", "image"):
                continue
            if kind == "tool_use":
                inputs = block.get("input") or {}
                call = Call(block.get("name", ""), inputs)
                seen.calls.append((block.get("id", ""), call))
                seen.keys.add(call.key)
                note(v for v in inputs.values() if isinstance(v, str))
            elif kind == "tool_result":
                text = result_text(block.get("content", ""))
                seen.results[block.get("tool_use_id", "")] = (text, bool(block.get("is_error")))
                note([text])
            elif kind == "text":
                if message["role"] == "user":
                    seen.user_texts.append(block["text"])
                note([block["text"]])
            elif kind == "compaction":
                seen.summaries.append(str(block.get("content") or ""))
                note(seen.summaries[-1:])
            else:
                note(_strings(block))
    return seen
