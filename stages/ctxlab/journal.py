"""The session journal: the history of every agent request, so a killed run can resume (§6.9).

The runner appends one JSON line per agent request to ``.ctxlab-session/history.jsonl`` in the
workspace, next to stage 5's frozen decisions: how many messages of the previous request the
new one keeps unchanged, and the messages that follow them. Each line is flushed and fsync'd
before the run goes on, so a crash loses at most the line being written, and a torn last line
is cut off before the next append (``JsonlWriter``). Lines are pure ASCII JSON, so any text a
model or a tool produced can be written.

Each line also carries what the loss manifest needs to say the same after a resume as after an
uninterrupted run: the original history (tool results as the tools returned them, the same
delta coding: ``okeep``/``oadd``), the summaries written since the previous line and the
reasons recorded for what left the context (``why``, changes only).

``resume_point(root)`` folds the lines back into the last history that was sent, with every
tool call ever made (to tell the scenario's follow-ups what already ran). A line that parses
but is not such a delta (a field missing, a message without ``role`` or ``content``) makes the
journal corrupt, said in one line. Resuming re-sends
that history: the layer that prepared it prepares it again over the same workspace — stage 5
reloads its frozen decisions — so the request is byte-identical to the last one sent before
the crash, and the prefix cache of that request still applies.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .loss import Tracker
from .telemetry import JsonlWriter, read_jsonl
from .tools import safe_path

JOURNAL = Path(".ctxlab-session") / "history.jsonl"
RUN_FILE = Path(".ctxlab-session") / "run.json"  # stage, scenario and model of the run
Messages = list[dict[str, Any]]


class JournalError(ValueError):
    """A journal that cannot be resumed from; the message says why, in one line."""


class NothingToResume(JournalError):
    """No request was journaled (the file is missing or holds no complete line)."""


def _shared(old: Messages, new: Messages) -> int:
    """How many leading messages ``old`` and ``new`` have in common."""
    n = 0
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        n += 1
    return n


class Journal:
    """Appends each request's history (and the tracker's state) as a delta."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.path = self.root / JOURNAL
        self._writer: JsonlWriter | None = None
        self._last: Messages = []
        self._original: Messages = []
        self._summaries = 0
        self._why: dict[str, str] = {}
        self.requests = 0

    def start_from(self, point: ResumePoint) -> None:
        """Continue a resumed journal from the state its last line holds."""
        self._last = copy.deepcopy(point.history)
        self._original = copy.deepcopy(point.original)
        self._summaries = len(point.summaries)
        self._why = dict(point.why)

    def sent(self, messages: Messages, tracker: Tracker | None = None) -> None:
        """Record the history of one agent request (and ``tracker``'s state), durably."""
        keep = _shared(self._last, messages)
        entry: dict[str, Any] = {"keep": keep, "add": messages[keep:]}
        if tracker is not None:
            okeep = _shared(self._original, tracker.original)
            entry.update(okeep=okeep, oadd=tracker.original[okeep:],
                         summaries=tracker.summaries[self._summaries:],
                         why={k: v for k, v in tracker.why.items() if self._why.get(k) != v})
            self._original = copy.deepcopy(tracker.original)
            self._summaries = len(tracker.summaries)
            self._why = dict(tracker.why)
        if self._writer is None:
            self._writer = JsonlWriter(self.path, ensure_ascii=True, root=self.root)
        self._writer.write(entry)
        self._last = copy.deepcopy(messages)
        self.requests += 1

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


@dataclass
class ResumePoint:
    """Where a journal ends: the last history sent, and what ran before it."""

    history: Messages
    requests: int
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (name, input)
    tool_names: dict[str, str] = field(default_factory=dict)  # tool_use id → name
    torn_lines: int = 0
    original: Messages = field(default_factory=list)  # what entered, as the tools returned it
    summaries: list[str] = field(default_factory=list)
    why: dict[str, str] = field(default_factory=dict)


def _is_message(message: object) -> bool:
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        return False
    content = message.get("content")
    return isinstance(content, str) or isinstance(content, list) and all(
        isinstance(b, dict) and isinstance(b.get("type"), str) for b in content)


def _fold(entry: dict[str, Any], history: Messages, keep_key: str, add_key: str) -> Messages:
    """``history`` with one delta applied; ``ValueError`` when the delta is malformed."""
    keep, add = entry.get(keep_key), entry.get(add_key)
    if (not isinstance(keep, int) or isinstance(keep, bool) or not 0 <= keep <= len(history)
            or not isinstance(add, list) or not all(_is_message(m) for m in add)):
        raise ValueError(keep_key)
    return history[:keep] + add


def resume_point(root: str | os.PathLike[str]) -> ResumePoint:
    """The last history in ``root``'s journal; ``JournalError`` when there is none to resume."""
    base = Path(root)
    path = base / JOURNAL
    if not path.is_file():
        raise NothingToResume(f"{root} holds no session journal ({JOURNAL}): nothing to resume")
    try:
        contents = read_jsonl(path, root=base.resolve())
    except ValueError as error:
        raise JournalError(f"the session journal is corrupt: {error}") from None
    history: Messages = []
    point = ResumePoint(history, 0, torn_lines=contents.torn_lines)
    for number, entry in enumerate(contents.records, 1):
        try:
            if not isinstance(entry, dict):
                raise ValueError("entry")
            history = _fold(entry, history, "keep", "add")
            if "okeep" in entry:
                point.original = _fold(entry, point.original, "okeep", "oadd")
                summaries, why = entry.get("summaries", []), entry.get("why", {})
                if not isinstance(summaries, list) or not isinstance(why, dict):
                    raise ValueError("summaries")
                point.summaries += [str(s) for s in summaries]
                point.why.update({str(k): str(v) for k, v in why.items()})
            else:
                point.original = history  # a journal written before the tracker's state was
        except ValueError:
            raise JournalError(f"the session journal is corrupt: entry {number} of {path} "
                               "is not a history delta") from None
        for message in entry["add"]:
            content = message["content"]
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_use":
                    given = block.get("input")
                    point.calls.append((str(block.get("name")),
                                        dict(given) if isinstance(given, dict) else {}))
                    point.tool_names[str(block.get("id"))] = str(block.get("name"))
    if not history:
        raise NothingToResume(f"the session journal {path} holds no request: nothing to resume")
    point.history, point.requests = history, len(contents.records)
    return point


def begin(target: Path, header: dict[str, Any]) -> Path:
    """Make the (missing or empty) folder ``target`` a run's workspace: ``run.json`` first.

    Written before anything is copied, so a run killed at any moment leaves a folder that
    ``resumable`` recognises as its own. Returns the resolved folder.
    """
    target.mkdir(parents=True, exist_ok=True)
    root = target.resolve()
    if any(root.iterdir()):
        raise FileExistsError(f"{target} is not an empty folder")
    data = json.dumps(header, ensure_ascii=True, sort_keys=True).encode()
    safe_path.write_bytes(root / RUN_FILE, data, root=root, durable=True)
    return root


def resumable(root: str | os.PathLike[str], header: dict[str, Any]) -> ResumePoint | None:
    """Where to resume the run in ``root``, or None when it must start over (it was killed
    before its first request was journaled); ``JournalError`` when it cannot be resumed, e.g.
    when it was made by another stage, scenario or model than ``header`` names."""
    base = Path(root)
    made = _header(base)
    if made is not None and made != header:
        raise JournalError(f"{root} holds the run of {_describe(made)}; --resume continues it "
                           f"only with the same settings, not {_describe(header)}")
    try:
        return resume_point(base)
    except NothingToResume:
        if made is None:
            raise
        return None  # killed before the first request: start over in the same folder


def _header(root: Path) -> dict[str, Any] | None:
    try:
        data = safe_path.read_bytes(root / RUN_FILE, root=root.resolve())
    except FileNotFoundError:
        return None  # a workspace made before run.json existed: nothing to check
    except (OSError, ValueError) as error:
        raise JournalError(f"cannot read {RUN_FILE} in {root}: {error}") from None
    try:
        made = json.loads(data)
    except ValueError:
        made = None
    if not isinstance(made, dict):
        raise JournalError(f"the session journal is corrupt: {RUN_FILE} is not a JSON object")
    return made


def _describe(header: dict[str, Any]) -> str:
    stage = header.get("stage")
    return (f"{'stage ' + str(stage) if stage is not None else 'keep-everything'} on "
            f"{header.get('scenario')} with {header.get('model')}")
