"""The tracker: the original history of a run, and why each piece left the context.

The runner feeds it as things happen; at every agent request it compares what the request shows
in full with everything that entered so far, and a piece no longer shown is put down to the
layers that fired since the previous request (``Compaction`` events, §12.6).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .manifest import LossManifest, manifest
from .view import Messages, View, blocks_of, image_key, images_in, result_text

UNREPORTED = "removed with no compaction event reported"


class _Units:
    """The units of an original history — tool results, user texts, images — kept up to date
    as blocks arrive, so each turn costs what that turn added."""

    def __init__(self) -> None:
        self.results: dict[str, str] = {}
        self.texts: list[str] = []
        self.images: dict[str, None] = {}

    def add(self, role: str, blocks: list[dict[str, Any]]) -> None:
        for block in blocks:
            if block.get("type") == "tool_result":
                self.results[str(block.get("tool_use_id"))] = result_text(block)
            elif role == "user" and block.get("type") == "text" and block.get("text"):
                self.texts.append(str(block["text"]))
        self.images.update(dict.fromkeys(image_key(b) for b in images_in(blocks)))

    def every(self) -> set[str]:
        return ({f"tool_use:{t}" for t in self.results}
                | {f"user_message:{n}" for n in range(1, len(self.texts) + 1)}
                | {f"image:{n}" for n in range(1, len(self.images) + 1)})

    def shown(self, view: View) -> set[str]:
        """The units ``view`` shows in full."""
        return ({f"tool_use:{t}" for t, text in self.results.items()
                 if view.results.get(t) == text}
                | {f"user_message:{n}" for n, text in enumerate(self.texts, 1)
                   if view.shows(text)}
                | {f"image:{n}" for n, key in enumerate(self.images, 1) if key in view.images})


class Tracker:
    """Keeps the original history of a run and notes why each piece left the context.

    Feed it in the order things happen: ``reply`` for every model answer, ``result`` for every
    tool result as the tool returned it, ``user`` for every message the user adds, ``events``
    for every compaction event, and ``sent`` for every history sent to the agent.
    """

    def __init__(self, history: Messages) -> None:
        self.original: Messages = copy.deepcopy(history)  # the task, or a resumed history
        self.last_sent: Messages = []
        self.summaries: list[str] = []
        self.why: dict[str, str] = {}
        self._shown: set[str] = set()
        self._layers: list[str] = []
        self._units = _Units()
        for message in self.original:
            self._units.add(message["role"], blocks_of(message))

    @classmethod
    def resumed(cls, original: Messages, history: Messages, summaries: list[str],
                why: dict[str, str]) -> Tracker:
        """The tracker of a run resumed from its journal: ``original`` is what had entered the
        context, ``history`` the last request sent, ``summaries`` and ``why`` as they were."""
        tracker = cls(original)
        tracker.summaries = list(summaries)
        tracker.why = dict(why)
        tracker._shown = tracker._units.shown(View(history, tracker.summaries))
        tracker.last_sent = list(history)
        return tracker

    def _user_message(self) -> dict[str, Any]:
        if self.original[-1]["role"] != "user":
            self.original.append({"role": "user", "content": []})
        last = self.original[-1]
        if isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"]}]
        return last

    def reply(self, kind: str, content: list[dict[str, Any]]) -> None:
        if kind == "agent":
            self.original.append({"role": "assistant", "content": copy.deepcopy(content)})
        else:
            self.summaries.append("".join(str(b.get("text", "")) for b in content
                                          if b.get("type") == "text"))

    def result(self, block: dict[str, Any]) -> None:
        self._user_message()["content"].append(copy.deepcopy(block))
        self._units.add("user", [block])

    def user(self, blocks: list[dict[str, Any]]) -> None:
        self._user_message()["content"].extend(copy.deepcopy(blocks))
        self._units.add("user", blocks)

    def events(self, events: Iterable[dict[str, Any]]) -> None:
        self._layers += [str(e.get("layer")) for e in events]

    def sent(self, messages: Messages) -> None:
        """A request went out with ``messages``: what is no longer shown left in this turn."""
        shown = self._units.shown(View(messages, self.summaries))
        known = self._units.every()
        reason = ", ".join(dict.fromkeys(self._layers)) or UNREPORTED
        for unit in known - shown:
            if unit in self._shown or unit not in self.why:
                self.why[unit] = reason
        self._shown = shown
        self._layers = []
        self.last_sent = list(messages)

    def manifest(self, final: Messages, root: Path) -> LossManifest:
        return manifest(self.original, final, root, summaries=self.summaries, why=self.why)
