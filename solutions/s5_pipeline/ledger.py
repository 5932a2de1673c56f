"""Frozen decisions: decide once, replay the same bytes every turn (guide §6.9).

Whether a result is offloaded or cleared is decided when it first enters the context (or
when it is cleared) and written to an append-only session log in the workspace, one JSON line
per decision, fsync'd (``ctxlab.telemetry.LogFolder``, which reaches the log's folder once and
never writes through a link); after a crash the next line starts on a fresh line, so a torn one
never swallows a later decision. Every later request applies the same replacements, so the
bytes sent never change behind the cache's back; a resumed session replays the log and sends
exactly the same prefix; a setting changed mid-session only affects results that arrive
afterwards. The ledger also holds the workspace's offload folders for the session
(``offloads``, ``ctxlab.loss.OffloadFolders``): a batch's copies are saved through them, on
disk with their checksums before the decisions that name them are recorded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxlab.loss import OffloadFolders
from ctxlab.telemetry import LogFolder, read_records

LOG = Path(".ctxlab-session") / "decisions.jsonl"


class Ledger:
    """tool_use id → the content that stands for that result in every later request."""

    def __init__(self, root: Path) -> None:
        self.path = root / LOG
        self.logs = LogFolder(self.path.parent, root=root, ensure_ascii=True)  # ASCII: any text
        self.offloads = OffloadFolders(root, logs=self.logs)  # the checksums go beside the log
        self.decisions: dict[str, dict[str, Any]] = {}
        self.recorded: list[str] = []  # ids frozen by this process, in order
        self.history: list[dict[str, Any]] = []  # every decision this process froze, in order
        self.by_layer: dict[str, tuple[int, list[str]]] = {}  # ``decided_by``'s, and when
        for entry in read_records(self.path):
            if isinstance(entry.get("id"), str) and "content" in entry:
                self.decisions[entry["id"]] = entry

    def record(self, tool_use_id: str, content: str, layer: str) -> None:
        """Freeze ``content`` as what ``tool_use_id``'s result is from now on."""
        self.record_all({tool_use_id: content}, layer)

    def record_all(self, decisions: dict[str, str], layer: str) -> None:
        """Freeze each ``decisions`` content as what its result is from now on: the decisions
        of one batch, appended in one write (a crash keeps the lines written whole)."""
        entries = [{"id": i, "layer": layer, "content": c} for i, c in decisions.items()]
        for entry in entries:
            self.decisions[entry["id"]] = entry
            self.recorded.append(entry["id"])
            self.history.append(entry)
        if entries:
            self.logs.append(LOG.name, entries)

    def decided_by(self, layer: str) -> list[str]:
        """The ids whose decision ``layer`` froze, in order: worked out again only after a
        new decision (``history`` grows with each)."""
        known = self.by_layer.get(layer)
        if known is None or known[0] != len(self.history):
            known = self.by_layer[layer] = (len(self.history), [
                i for i, d in self.decisions.items() if d.get("layer") == layer])
        return list(known[1])

    def note(self, name: str, entry: dict[str, Any]) -> None:
        """Append a record (summary quality, the user's texts) to ``<name>.jsonl`` beside the
        log."""
        self.logs.append(f"{name}.jsonl", [entry])

    def notes(self, name: str) -> list[dict[str, Any]]:
        """The records ``note(name, ...)`` appended, in order (also those of an earlier run)."""
        return read_records(self.path.with_name(f"{name}.jsonl"))

    def apply(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The history with every frozen replacement applied (idempotent). A message whose
        results already read as decided is passed on as it is, not copied."""
        out = []
        for message in messages:
            content = message["content"]
            if isinstance(content, str) or not any(self._pending(b) for b in content):
                out.append(message)
                continue
            out.append(dict(message, content=[
                dict(b, content=self.decisions[b["tool_use_id"]]["content"])
                if self._pending(b) else b for b in content]))
        return out

    def _pending(self, block: dict[str, Any]) -> bool:
        """A tool result with a frozen decision that it does not read as yet."""
        decision = self.decisions.get(block.get("tool_use_id"))
        return (decision is not None and block.get("type") == "tool_result"
                and block.get("content") != decision["content"])
