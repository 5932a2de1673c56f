"""Exercise 4.3 — after the summary, put the files back (guide §10.1–§10.4, §14 stage 4 "坑 3").

The summary says "we were changing report_job.py" but not what the file holds now, so the
agent would read it again. Files are state, not facts (§10.2): the summary keeps their paths,
and the rebuild reads them again from the workspace — directly, never through the model — and
attaches the current text to the summary message. A copy written into the summary would be a
snapshot the model cannot tell from the truth once the file changes.

Three nested budgets, because each alone leaves a hole (§10.3): at most 5 files, each at most
5K tokens, 50K tokens in all. And a file whose modification time moved since the agent last
saw it is flagged, so "this may have changed" is said out loud instead of assumed (§10.2).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ctxlab.tokens import count_text, encoding
from ctxlab.tools import ToolError
from ctxlab.tools.sandbox import resolve_inside

Messages = list[dict[str, Any]]

MAX_FILES = 5
PER_FILE = 5_000
TOTAL = 50_000
ATTACHMENT_HEADER = "Files read again from the workspace after the compaction (current contents):"
_ATTACHED = re.compile(r'^<file path="([^"]+)">$', re.M)
CHANGED_NOTE = ("Note: this file changed on disk after the agent last saw it; the text below is "
                "its current content, not the one the conversation saw.")


def tool_uses(messages: Messages) -> list[dict[str, Any]]:
    """The tool calls of ``messages`` (the assistant's ``tool_use`` blocks), in order."""
    return [b for m in messages if m["role"] == "assistant" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_use"]


def touched_paths(messages: Messages) -> list[str]:
    """The ``path`` inputs of the tool calls in ``messages``, most recent first, then the files
    an earlier rebuild attached (a second compaction in a row must not forget the file the
    first one put back), no repeats."""
    paths = [u["input"]["path"] for u in tool_uses(messages)
             if isinstance((u.get("input") or {}).get("path"), str)]
    attached = [path for m in messages if m["role"] == "user" and isinstance(m["content"], list)
                for b in m["content"] if b.get("type") == "text"
                and b.get("text", "").startswith(ATTACHMENT_HEADER)
                for path in _ATTACHED.findall(b["text"])]
    return list(dict.fromkeys([*reversed(paths), *attached]))


class FileLog:
    """When the agent last saw each file: path → modification time (ns) after its last call.

    ``record`` runs before every request, right after the previous calls ran, so the time it
    stores is the one the agent's view of the file matches.
    """

    def __init__(self) -> None:
        self.mtimes: dict[str, int] = {}
        self._seen: set[str] = set()
        self._root: tuple[Path, Path] | None = None  # the workspace root and its real path

    def record(self, messages: Messages, root: Path) -> None:
        """Note the modification time of each file named by a tool call not seen before."""
        for use in tool_uses(messages):
            path = (use.get("input") or {}).get("path")
            if use.get("id") in self._seen or not isinstance(path, str):
                continue
            self._seen.add(use.get("id", ""))
            try:
                self.mtimes[path] = resolve_inside(self._real(root), path).stat().st_mtime_ns
            except (ToolError, OSError):
                continue

    def _real(self, root: Path) -> Path:
        """``root`` resolved (as ``resolve_inside`` wants it), once per root: ``record`` runs
        before every request of a session, whose workspace does not move."""
        if self._root is None or self._root[0] != root:
            self._root = (root, root.resolve())
        return self._root[1]


def clip_tokens(text: str, budget: int) -> str:
    """``text`` cut to at most ``budget`` tokens, with a line saying it was cut."""
    tokens = encoding().encode(text, disallowed_special=())
    if len(tokens) <= budget:
        return text
    note = f"\n[… clipped here: the file has {len(tokens):,} tokens; read it for the rest]"
    return encoding().decode(tokens[:max(0, budget - count_text(note) - 1)]) + note


def reattach_files(older: Messages, root: Path, mtimes: dict[str, int], *,
                   max_files: int = MAX_FILES, per_file: int = PER_FILE,
                   total: int = TOTAL) -> str:
    """The attachment for the files touched in ``older``: '' when none could be attached.

    Go through ``touched_paths(older)``, newest first, until ``max_files`` are attached. For
    each: resolve it inside ``root`` with ``resolve_inside`` and read it as UTF-8, skipping it
    on ``ToolError``, ``OSError`` or ``UnicodeDecodeError``; write it as
    ``<file path="…">`` + newline + text + newline + ``</file>``, with ``CHANGED_NOTE`` as the
    first line inside when ``path`` is in ``mtimes`` and its ``st_mtime_ns`` differs; clip the text
    (``clip_tokens``) so that the whole block stays within ``per_file`` tokens; skip it when
    it would take the blocks past ``total`` tokens. Join ``ATTACHMENT_HEADER`` and the blocks
    with blank lines.
    """
    ### BEGIN SOLUTION 4.3
    blocks: list[str] = []
    used = 0
    for path in touched_paths(older):
        if len(blocks) == max_files:
            break
        try:
            target = resolve_inside(root.resolve(), path)
            text = target.read_text(encoding="utf-8")
            changed = path in mtimes and target.stat().st_mtime_ns != mtimes[path]
        except (ToolError, OSError, UnicodeDecodeError):
            continue
        head = f'<file path="{path}">\n' + (CHANGED_NOTE + "\n" if changed else "")
        foot = "\n</file>"
        block = head + clip_tokens(text, per_file - count_text(head + foot)) + foot
        size = count_text(block)
        if used + size > total:
            continue
        blocks.append(block)
        used += size
    return "\n\n".join([ATTACHMENT_HEADER, *blocks]) if blocks else ""
    ### END SOLUTION
