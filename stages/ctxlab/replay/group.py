"""Session trees: the lines of every log given, grouped by the session they belong to (§11).

Claude Code writes a session's main thread to ``<session>.jsonl`` and each sub-agent's
sidechain to ``<session>/subagents/agent-<id>.jsonl`` (older versions put sidechain lines in
the main file); every line carries its session's ``sessionId``, a sidechain line also
``isSidechain: true`` and, from 2.0 on, its sub-agent's ``agentId`` (real-transcripts §4.1).
So lines, not files, are grouped, over every file given, whatever their order or folders:

- a line belongs to the session whose ``sessionId`` it carries; a line with none (a title, a
  snapshot) goes with the line before it in its file (the file's first line with one, at the
  start); a file with no ``sessionId`` at all is a session of its own;
- within a session the main-thread lines are the *parent*, and the sidechain lines of each
  ``agentId`` one *sidechain* (a sidechain line with no ``agentId`` takes the one its file
  gives its other sidechain lines, else it stands for its file's own sub-agent);
- a file holding several sessions (a resumed session re-logs the one it resumed) gives each its
  part; one session's parts from several files are put in order of their first timestamp, and
  the copies between them are dropped when the history is built (by ``message.id``);
- a session whose main thread is in none of the files has orphan sidechains: each is reported
  on its own and says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .lines import MAX_BYTES, Entry, ReadResult, TranscriptError, read_lines, seconds

Key = tuple[str, str | None]  # (session, agent) as grouped: a file's own key when it names none


@dataclass
class Member:
    """One thread of a session: its main thread (``agent`` None) or one sub-agent. Where its
    lines are is known from the first reading; the lines themselves are held only while its
    tree is ``loaded``."""

    key: Key
    sidechain: bool
    starts: dict[Path, float] = field(default_factory=dict)  # file → its first timestamp here
    talks: bool = False  # holds a user or assistant message
    parts: dict[Path, list[Entry]] = field(default_factory=dict)
    skipped: list[ReadResult] = field(default_factory=list)  # files whose unread lines count here

    @property
    def session(self) -> str | None:
        return _visible(self.key[0])

    @property
    def agent(self) -> str | None:
        return _visible(self.key[1])

    @property
    def paths(self) -> list[Path]:
        """The files holding this thread, in the order its lines are read."""
        return sorted(self.starts, key=self.starts.__getitem__)

    @property
    def start(self) -> float:
        return min(self.starts.values())

    def read(self) -> ReadResult:
        """The thread's lines, file after file, as one ``ReadResult`` (what could not be read
        of a file is counted with the thread its first line belongs to)."""
        entries = [e for path in self.paths for e in self.parts.get(path, [])]
        result = ReadResult(entries, len(entries))
        for skipped in self.skipped:
            result.lines += skipped.comments + len(skipped.broken)
            result.comments += skipped.comments
            result.broken += skipped.broken
        return result


@dataclass
class Tree:
    """A session: its parent (None when no file holds its main thread) and its sidechains,
    in the order they started."""

    session: str | None
    parent: Member | None
    sidechains: list[Member]
    max_bytes: int = MAX_BYTES

    @property
    def members(self) -> list[Member]:
        """The parent (when here) first, then the sidechains."""
        return ([self.parent] if self.parent else []) + self.sidechains

    def entries(self) -> Iterator[Entry]:
        """Every line of the session, thread after thread (while ``loaded``)."""
        return (e for m in self.members for part in m.parts.values() for e in part)

    @contextmanager
    def loaded(self) -> Iterator[Tree]:
        """The tree with its members' lines read from their files, released afterwards: one
        session in memory at a time, however many logs were given."""
        members = {m.key: m for m in self.members}
        try:
            for path in dict.fromkeys(p for m in members.values() for p in m.starts):
                try:
                    read = read_lines(path, self.max_bytes)
                except TranscriptError:
                    continue  # gone since it was first read: its lines are missing
                _partition(path, read, members)
            yield self
        finally:
            for member in members.values():
                member.parts, member.skipped = {}, []


def _start(entries: list[Entry]) -> float:
    """The first timestamp among ``entries`` (infinity when none is readable)."""
    stamps = [seconds(e.data["timestamp"]) for e in entries if e.data.get("timestamp")]
    return min((s for s in stamps if s is not None), default=float("inf"))


def _session(entry: Entry) -> str | None:
    sid = entry.data.get("sessionId")
    return sid if isinstance(sid, str) and sid else None


def _threads(path: Path, entries: list[Entry]) -> list[tuple[str, str | None, bool]]:
    """Per entry of one file: its session, its sub-agent, whether it is a sidechain line."""
    agents: dict[str, str] = {}  # per session: the agentId its sidechain lines give
    for entry in entries:
        sid, agent = _session(entry), entry.data.get("agentId")
        if sid and entry.data.get("isSidechain") and isinstance(agent, str) and agent:
            agents.setdefault(sid, agent)
    own: list[tuple[str, str | None, bool] | None] = []
    for entry in entries:
        sid = _session(entry)
        if sid is None:
            own.append(None)
            continue
        agent = entry.data.get("agentId")
        side = bool(entry.data.get("isSidechain"))
        agent = (agent if isinstance(agent, str) and agent else
                 agents.get(sid, f"file:{path}")) if side else None
        own.append((sid, agent, side))
    last = next((t for t in own if t is not None), (f"file:{path}", None, False))
    threads = []
    for thread in own:  # a line with no session goes with the line before (the first, at start)
        last = thread or last
        threads.append(last)
    return threads


def _partition(path: Path, read: ReadResult, members: dict[Key, Member]) -> None:
    """Give each member in ``members`` its lines of ``path`` (and its skipped lines)."""
    threads = _threads(path, read.entries)
    for entry, (sid, agent, _) in zip(read.entries, threads, strict=True):
        if (sid, agent) in members:
            members[sid, agent].parts.setdefault(path, []).append(entry)
    owner = threads[0][:2] if threads else (f"file:{path}", None)
    if owner in members:
        members[owner].skipped.append(ReadResult([], comments=read.comments,
                                                 broken=read.broken))


@dataclass
class Scan:
    """What one file holds, learnt from one reading: each thread it has lines of (in the
    order its first line comes) with whether that line is a sidechain's, whether the thread
    talks here and its first timestamp here; or why the file cannot be read. Small, so that
    files can be scanned in other processes (``replay --jobs``)."""

    path: Path
    threads: list[tuple[Key, bool, bool, float]] = field(default_factory=list)
    error: str | None = None


def scan(path: Path, max_bytes: int = MAX_BYTES) -> Scan:
    """Read ``path`` once and say which threads it holds (``Scan``)."""
    try:
        read = read_lines(path, max_bytes)
    except TranscriptError as error:
        return Scan(path, error=str(error))
    threads = _threads(path, read.entries)
    found: dict[Key, tuple[bool, bool, list[Entry]]] = {}
    for entry, (sid, agent, side) in zip(read.entries, threads, strict=True):
        first_side, talks, entries = found.setdefault((sid, agent), (side, False, []))
        entries.append(entry)
        talks = talks or (entry.type in ("user", "assistant")
                          and isinstance(entry.data.get("message"), dict))
        found[sid, agent] = (first_side, talks, entries)
    owner = threads[0][:2] if threads else (f"file:{path}", None)
    found.setdefault(owner, (False, False, []))
    return Scan(path, [(key, side, talks, _start(entries))
                       for key, (side, talks, entries) in found.items()])


def assemble(scans: Iterable[Scan], max_bytes: int = MAX_BYTES
             ) -> tuple[list[Tree], list[tuple[Path, str]]]:
    """The session trees of the scanned files (in the order given), in the order their first
    lines came, and the files that could not be read, each with why."""
    members: dict[Key, Member] = {}
    failed: list[tuple[Path, str]] = []
    for done in scans:
        if done.error is not None:
            failed.append((done.path, done.error))
            continue
        for key, side, talks, start in done.threads:
            member = members.setdefault(key, Member(key, side))
            member.talks = member.talks or talks
            member.starts[done.path] = start
    trees: dict[str, Tree] = {}
    for (sid, _), member in members.items():
        tree = trees.setdefault(sid, Tree(_visible(sid), None, [], max_bytes))
        if member.sidechain:
            tree.sidechains.append(member)
        else:
            tree.parent = member
    for tree in trees.values():
        tree.sidechains.sort(key=lambda m: m.start)
        if tree.sidechains and tree.parent is not None and not tree.parent.talks:
            tree.parent = None  # bookkeeping lines only: the main thread is not here
    return list(trees.values()), failed


def group(files: Iterable[Path], max_bytes: int = MAX_BYTES
          ) -> tuple[list[Tree], list[tuple[Path, str]]]:
    """The session trees of ``files`` and the files that could not be read (``assemble``
    of each file's ``scan``). Each file is read here to learn which threads it holds, and
    again when its tree is ``loaded``."""
    return assemble((scan(path, max_bytes) for path in files), max_bytes)


def _visible(sid: str | None) -> str | None:
    """A session or agent id as reported: None for one a file stands for (it names none)."""
    return None if sid is None or sid.startswith("file:") else sid
