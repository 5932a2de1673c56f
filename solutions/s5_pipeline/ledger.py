"""Frozen decisions: decide once, replay the same bytes every turn (guide §6.9).

Whether a result is offloaded or cleared is decided when it first enters the context (or
when it is cleared) and written to an append-only session log in the workspace, one JSON line
per decision, fsync'd. Every later request applies the same replacements, so the bytes sent
never change behind the cache's back; a resumed session replays the log and sends exactly
the same prefix; a setting changed mid-session only affects results that arrive afterwards.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

LOG = Path(".ctxlab-session") / "decisions.jsonl"


class Ledger:
    """tool_use id → the content that stands for that result in every later request."""

    def __init__(self, root: Path) -> None:
        self.path = root / LOG
        self.decisions: dict[str, dict[str, str]] = {}
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue  # a torn last line from a crash: that decision was never used
                self.decisions[entry["id"]] = entry

    def record(self, tool_use_id: str, content: str, layer: str) -> None:
        """Freeze ``content`` as what ``tool_use_id``'s result is from now on."""
        entry = {"id": tool_use_id, "layer": layer, "content": content}
        self.decisions[tool_use_id] = entry
        self._append(self.path, entry)

    def note(self, name: str, entry: dict[str, Any]) -> None:
        """Append a diagnostic record (e.g. summary quality) to ``<name>.jsonl`` beside the log."""
        self._append(self.path.with_name(f"{name}.jsonl"), entry)

    @staticmethod
    def _append(path: Path, entry: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry, ensure_ascii=False) + "\n")
            log.flush()
            os.fsync(log.fileno())

    def apply(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The history with every frozen replacement applied (idempotent)."""
        out = []
        for message in messages:
            content = message["content"]
            if isinstance(content, str) or not any(
                    b.get("tool_use_id") in self.decisions for b in content):
                out.append(message)
                continue
            out.append(dict(message, content=[
                dict(b, content=self.decisions[b["tool_use_id"]]["content"])
                if b.get("type") == "tool_result" and b.get("tool_use_id") in self.decisions
                else b for b in content]))
        return out
