"""The manifest itself: every tool call, file, user message and image, and where it lives.

Statuses, in order of preference: ``in context``, ``in summary``, ``on disk`` (``where`` names
the offloaded file, the archived transcript or — for a file — the workspace file), ``nowhere``.
The folders are the stages' conventions; the lab bench never imports a stage.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..telemetry import read_records
from ..tools import ToolError, safe_path
from ..tools.sandbox import resolve_inside
from .checksums import problem, recorded
from .view import Messages, View, blocks_of, image_key, images_in, result_text

IN_CONTEXT, IN_SUMMARY, ON_DISK, NOWHERE = "in context", "in summary", "on disk", "nowhere"
STATUSES = (IN_CONTEXT, IN_SUMMARY, ON_DISK, NOWHERE)
KINDS = ("tool_use", "file", "user_message", "image")
OFFLOAD_DIR = Path(".task_outputs") / "tool-results"
TRANSCRIPT = Path(".transcripts") / "session.jsonl"


@dataclass(frozen=True)
class Item:
    """One tool call, file, user message or image, and where it lives now."""

    kind: str
    key: str  # tool_use id, file path, "user message N", "image N"
    status: str
    where: str = ""  # the copy on disk (workspace-relative), when there is one
    why: str = ""  # what removed it from the context; "" while it is in context
    preview: str = ""  # the start of a user message; the tool and input of a call


@dataclass
class LossManifest:
    """Every item of a run, with helpers to ask what was lost."""

    items: list[Item] = field(default_factory=list)

    def of(self, kind: str) -> list[Item]:
        return [i for i in self.items if i.kind == kind]

    def with_status(self, status: str) -> list[Item]:
        return [i for i in self.items if i.status == status]

    def lost(self) -> list[Item]:
        """What is nowhere: neither in the context, a summary, nor on disk."""
        return self.with_status(NOWHERE)

    def counts(self) -> dict[str, dict[str, int]]:
        """kind → status → number of items (statuses with none are left out)."""
        table: dict[str, dict[str, int]] = {}
        for item in self.items:
            row = table.setdefault(item.kind, {})
            row[item.status] = row.get(item.status, 0) + 1
        return table

    def to_dict(self) -> dict[str, Any]:
        return {"counts": self.counts(),
                "removed": [asdict(i) for i in self.items if i.status != IN_CONTEXT]}



def user_texts(messages: Messages) -> list[str]:
    """The texts the user wrote, oldest first (tool results are not user texts)."""
    return [str(b["text"]) for m in messages if m.get("role") == "user" for b in blocks_of(m)
            if b.get("type") == "text" and b.get("text")]


def _image_keys(messages: Messages) -> list[str]:
    return list(dict.fromkeys(image_key(b) for m in messages for b in images_in(blocks_of(m))))


def _original_results(messages: Messages) -> dict[str, str]:
    return {str(b["tool_use_id"]): result_text(b) for m in messages for b in blocks_of(m)
            if b.get("type") == "tool_result"}


def _calls(messages: Messages) -> list[dict[str, Any]]:
    return [b for m in messages if m.get("role") == "assistant" for b in blocks_of(m)
            if b.get("type") == "tool_use"]


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _archive(root: Path) -> Messages:
    """The archived transcript's messages; torn or foreign lines are skipped (and reported)."""
    return [m for m in read_records(root / TRANSCRIPT, root=root) if "role" in m]


def _offloaded(root: Path, tool_id: str, raw: str, sums: dict[str, str]) -> tuple[bool, str]:
    """Whether the offloaded file of ``tool_id`` holds ``raw`` in full (read without following
    a link, its checksum as recorded at write time), else what went wrong with it ("" when
    there never was one)."""
    relative = (OFFLOAD_DIR / f"{tool_id}.txt").as_posix()
    if relative in sums and (why := problem(root, relative, sums[relative])) is not None:
        return False, f"offloaded file {why}"
    try:
        data = safe_path.read_bytes(root / relative, root=root)
    except FileNotFoundError:
        return False, ""
    except (OSError, ValueError):
        return False, "offloaded file not readable without following a link"
    return data.decode("utf-8", errors="replace") == raw, ""


def _workspace_file(root: Path, path: str) -> Path | None:
    try:
        target = resolve_inside(root.resolve(), path)
    except (ToolError, OSError, ValueError):
        return None
    return target if target.is_file() else None


def manifest(original: Messages, final: Messages, root: Path, *,
             summaries: Iterable[str] = (), why: dict[str, str] | None = None) -> LossManifest:
    """Where every tool call, file, user message and image of ``original`` lives now."""
    why = why or {}
    sums = recorded(root)
    now = View(final, summaries)
    archived = View(_archive(root))
    items: list[Item] = []
    results = _original_results(original)
    last_call: dict[str, str] = {}
    for call in _calls(original):
        tool_id = str(call.get("id"))
        tool_input = call.get("input") if isinstance(call.get("input"), dict) else {}
        if isinstance(tool_input.get("path"), str):
            last_call[tool_input["path"]] = tool_id
        label = " ".join(str(v) for v in tool_input.values())[:80]
        main = str(next(iter(tool_input.values()), ""))
        raw = results.get(tool_id)
        stored, broken = (False, "") if raw is None else _offloaded(root, tool_id, raw, sums)
        if raw is None or now.results.get(tool_id) == raw:
            status, where = IN_CONTEXT, ""
        elif stored:
            status, where = ON_DISK, (OFFLOAD_DIR / f"{tool_id}.txt").as_posix()
        elif archived.results.get(tool_id) == raw:
            status, where = ON_DISK, TRANSCRIPT.as_posix()
        elif now.summarizes(main):
            status, where = IN_SUMMARY, ""
        else:
            status, where = NOWHERE, ""
        reason = "" if status == IN_CONTEXT else why.get(f"tool_use:{tool_id}", "")
        if broken and status == NOWHERE:
            reason = f"{reason} ({broken})" if reason else broken
        items.append(Item("tool_use", tool_id, status, where, reason,
                          f"{call.get('name')} {label}".strip()))
    for path, tool_id in last_call.items():
        target = _workspace_file(root, path)
        text = _read(target) if target is not None else None
        if (text and now.mentions(text)) or (target is None and now.mentions(path)):
            status = IN_CONTEXT  # its content is shown, or (no such file) the call naming it
        elif now.summarizes(path):
            status = IN_SUMMARY
        else:
            status = ON_DISK if target is not None else NOWHERE
        items.append(Item("file", path, status, path if target is not None else "",
                          "" if status == IN_CONTEXT else why.get(f"tool_use:{tool_id}", "")))
    for n, text in enumerate(user_texts(original), 1):
        if now.shows(text):
            status, where = IN_CONTEXT, ""
        elif now.summarizes(text):
            status = IN_SUMMARY
            where = TRANSCRIPT.as_posix() if archived.mentions(text) else ""
        elif archived.mentions(text):
            status, where = ON_DISK, TRANSCRIPT.as_posix()
        else:
            status, where = NOWHERE, ""
        items.append(Item("user_message", f"user message {n}", status, where,
                          "" if status == IN_CONTEXT else why.get(f"user_message:{n}", ""),
                          text[:60]))
    for n, key in enumerate(_image_keys(original), 1):
        if key in now.images:
            status, where = IN_CONTEXT, ""
        elif key in archived.images:
            status, where = ON_DISK, TRANSCRIPT.as_posix()
        else:
            status, where = NOWHERE, ""
        items.append(Item("image", f"image {n}", status, where,
                          "" if status == IN_CONTEXT else why.get(f"image:{n}", "")))
    return LossManifest(items)
