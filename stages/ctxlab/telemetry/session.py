"""A run's session log: a ``turn`` line per call and a ``summary`` line at the end (§12.6)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from ctxlab.telemetry.jsonl import JsonlWriter, read_jsonl
from ctxlab.telemetry.record import TurnRecord
from ctxlab.telemetry.summary import RunSummary


class SessionLog:
    """Write one run's telemetry as JSON Lines, each line durable as soon as it is written."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        folder = Path(path).absolute().parent.resolve()  # the user chose it: trusted
        self._writer = JsonlWriter(folder / Path(path).name, root=folder)
        self.path = self._writer.path

    def turn(self, record: TurnRecord) -> None:
        """Log one call: ``{"type": "turn", ...record}``."""
        self._writer.write({"type": "turn", **record.to_dict()})

    def summary(self, summary: RunSummary) -> None:
        """Log the end of the run: ``{"type": "summary", ...summary}``."""
        self._writer.write({"type": "summary", **summary.to_dict()})

    def close(self) -> None:
        self._writer.close()

    def __enter__(self) -> SessionLog:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


@dataclass
class Session:
    """A session log read back: its turns, its summaries (none if the run crashed), torn lines."""

    turns: list[TurnRecord] = field(default_factory=list)
    summaries: list[RunSummary] = field(default_factory=list)
    torn_lines: int = 0


def load_session(path: str | os.PathLike[str]) -> Session:
    """Read a session log written by :class:`SessionLog`."""
    folder = Path(path).absolute().parent.resolve()
    contents = read_jsonl(folder / Path(path).name, root=folder)
    session = Session(torn_lines=contents.torn_lines)
    for record in contents.records:
        if record.get("type") == "turn":
            session.turns.append(TurnRecord.from_dict(record))
        elif record.get("type") == "summary":
            session.summaries.append(RunSummary.from_dict(record))
    return session
