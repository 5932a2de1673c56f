"""A file that changed on disk since the agent saw it, said where the agent looks next (§10.2).

The summary's rebuild attaches each file it puts back with a note when the file changed since
the agent last saw it (stage 4). Once microcompact keeps the context in the band, the summary
seldom runs — and a cleared result's kept lines (§7.4) may still show the old text of a file,
which the model cannot tell from the current one. So the pipeline says it as soon as it is
true: before a request, a file the agent saw (stage 4's file log) whose modification time has
moved since is attached, once, at the end of the newest tool result, as the rebuild attaches
it: its current text (within the rebuild's budget per file, §10.3) under the rebuild's note, so
the agent need not read it again. The attachment is a frozen decision (§6.9) on that result,
so every later request, and a resumed session, sends the same bytes; it lies after the cached
prefix, so it costs no rewrite. When microcompact later clears that result, its placeholder
keeps the attachment (``attached``), as a summary keeps the rebuild's: the old lines a cleared
result may keep must never stand alone again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from s3_offload.layer import result_text
from s4_summarize.rebuild import CHANGED_NOTE, PER_FILE, clip_tokens

from ctxlab.tools import ToolError
from ctxlab.tools.sandbox import resolve_inside

Messages = list[dict[str, Any]]
LAYER = "changed-note"


class ChangedFiles:
    """Which changed files were named already (path → the modification time named)."""

    def __init__(self) -> None:
        self.named: dict[str, int] = {}
        self.attached: dict[str, str] = {}  # tool_use id → the attachments after its result

    def changed(self, seen: dict[str, int], root: Path) -> list[str]:
        """The attachments of the files in ``seen`` (path → modification time when the agent
        last saw it) whose time moved since and that were not attached at this time before:
        each ``<file path="…">``, the rebuild's note, its current text (clipped), ``</file>``."""
        blocks: list[str] = []
        if not seen:  # no file seen yet: no path to resolve (this runs before every request)
            return blocks
        root = root.resolve()
        for path, then in seen.items():
            try:
                target = resolve_inside(root, path)
                now = target.stat().st_mtime_ns
                if now == then or self.named.get(path) == now:
                    continue
                text = target.read_text(encoding="utf-8")
            except (ToolError, OSError, UnicodeDecodeError):
                continue
            self.named[path] = now
            head, foot = f'<file path="{path}">\n{CHANGED_NOTE}\n', "\n</file>"
            blocks.append(head + clip_tokens(text, PER_FILE) + foot)
        return blocks


def newest_result(messages: Messages) -> dict[str, Any] | None:
    """The last tool result of the newest message, or None when it holds none."""
    content = messages[-1]["content"] if messages else ""
    if isinstance(content, str):
        return None
    results = [b for b in content if b.get("type") == "tool_result"]
    return results[-1] if results else None


def joined(attachments: list[str]) -> str:
    """The attachments as the text that follows a result."""
    return "".join(f"\n\n{a}" for a in attachments)


def noted(block: dict[str, Any], attachments: list[str]) -> str:
    """The text of ``block`` followed by ``attachments``."""
    return result_text(block) + joined(attachments)
