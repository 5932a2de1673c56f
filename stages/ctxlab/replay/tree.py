"""Replaying a session tree: the parent, then each sidechain, every usage billed once (§11, §12.1).

``replay_tree(tree, stage)`` imports each member of a session (``group``) from its lines,
replays it through the stage as if it were a log of its own, and says what each sidechain was
for (``kind``). The usage a response recorded is billed once in the tree: a ``message.id``
one member billed is not billed again by another (the parent goes first). A tree's figures
are the sums of its members'. A session whose parent is in none of the files given yields one
entry per sidechain, each marked as an orphan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .group import Member, Tree
from .kind import Kind, agent_types, sidechain_kind
from .lines import TranscriptError
from .report import ReplayReport
from .run import replay_transcript
from .transcript import build_transcript

SUMMED = ("requests", "recorded_requests", "recorded_usd", "without_zones_usd",
          "with_zones_usd", "summary_calls", "summary_usd")
"""The bill's figures a tree adds up over its members."""


@dataclass
class MemberReport:
    """One member's replay: the main thread (``kind`` None) or a sidechain."""

    report: ReplayReport
    files: list[str]
    agent: str | None = None
    kind: Kind | None = None

    def to_dict(self) -> dict[str, Any]:
        data = self.report.to_dict()
        data["files"] = self.files
        if self.kind is not None:
            data |= {"agent_id": self.agent, "kind": self.kind.kind,
                     "agent_type": self.kind.agent_type, "kind_evidence": self.kind.evidence}
        return data


@dataclass
class TreeReport:
    """A parent and its sidechains, or an orphan sidechain on its own."""

    session: str | None
    root: MemberReport
    sidechains: list[MemberReport] = field(default_factory=list)
    orphan_note: str | None = None  # why this sidechain stands alone

    @property
    def orphan(self) -> bool:
        return self.orphan_note is not None

    @property
    def members(self) -> list[MemberReport]:
        return [self.root, *self.sidechains]

    def totals(self) -> dict[str, float]:
        """The tree's bill: each figure summed over its members."""
        bills = [m.report.bill.to_dict() for m in self.members]
        return {key: sum(b[key] for b in bills) for key in SUMMED}

    def to_dict(self) -> dict[str, Any]:
        """The root's report, then the session, the sidechains and the tree's totals."""
        return self.root.to_dict() | {
            "session": self.session, "orphan": self.orphan, "orphan_note": self.orphan_note,
            "sidechains": [s.to_dict() for s in self.sidechains], "tree": self.totals()}


def replay_tree(tree: Tree, stage: int | None, name: Callable[[Path], str], *,
                whole_file: bool = False, **replay: Any
                ) -> tuple[list[TreeReport], list[tuple[Member, str]]]:
    """The replays of ``tree``'s members (``name`` gives a file's shown name; ``replay``:
    ``replay_transcript``'s options), and each member that could not be replayed, with why."""
    with tree.loaded():
        types = agent_types(tree.entries())
        billed: set[str] = set()
        done: list[MemberReport] = []
        failed: list[tuple[Member, str]] = []
        for member in tree.members:
            read = member.read()
            try:
                transcript = build_transcript(member.paths[0], read, whole_file=whole_file)
            except TranscriptError as error:
                failed.append((member, str(error)))
                continue
            report = replay_transcript(transcript, stage, billed=billed, **replay)
            files = [name(p) for p in member.paths]
            report.file = files[0]
            kind = sidechain_kind(member.agent, read.entries, transcript.messages, types) \
                if member.sidechain else None
            done.append(MemberReport(report, files, member.agent, kind))
    if tree.parent is not None and done and done[0].kind is None:
        return [TreeReport(tree.session, done[0], done[1:])], failed
    why = ("in none of the files given" if tree.parent is None else
           "in the files given but holds nothing to replay")
    note = f"a sidechain of session {tree.session}, whose main thread is {why}"
    return [TreeReport(tree.session, m, orphan_note=note) for m in done], failed
