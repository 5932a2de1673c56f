"""The room's reports: a scoreboard that reads at 80 columns, per-participant findings, CSV and
JSON (``ctxlab room``)."""

from __future__ import annotations

import csv
import io
from dataclasses import asdict
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.text import Text

from ..view.fit import compact_table, figures
from ..workbook.points import EARNS
from .copying import shown
from .room import Participant


def flags(person: Participant) -> list[str]:
    """Short marks for the scoreboard's last column."""
    if person.submission.rejected:
        return ["rejected"]
    marks = [f"s{n} {fate}" for n, fate in person.runs.items()
             if fate in ("time-out", "crash", "refused")]
    marks += sorted({f"{t.split(':')[0]} tampered" for t in person.tampered})
    if person.ignored_edits:
        marks.append("tests edited")
    if person.outside:
        marks.append("wrote outside")  # or tried to, in the jail
    return marks


CAPTION = ("Graded with this checkout's tests and reference: edits to a submission's tests "
           "are ignored (listed below). Points: solutions/grading.toml.")
UNJAILED = ("Unjailed (--no-jail): each participant's code ran with your rights and could "
            "read or change the other submissions, the room's results and your checkout.")


def scoreboard(room: list[Participant], stages: list[int]) -> RenderableType:
    """One line per participant: points per stage, total, share, marks."""
    table = compact_table(title="Room scoreboard")
    table.add_column("participant", overflow="fold", max_width=24)
    figures(table, *[f"s{n}" for n in stages], "total", "%")
    table.add_column("marks", overflow="fold")
    for person in sorted(room, key=lambda p: (-p.points()[0], p.name)):
        total, worth = person.points()
        cells = [f"{a}/{b}" for a, b in (person.points(n) for n in stages)]
        table.add_row(escape(person.name), *cells, f"{total}/{worth}",
                      f"{100 * total / worth:.0f}" if worth else "–",
                      escape(", ".join(flags(person))))
    return table


def _short(item: str) -> str:
    """``exercise 2.3 find_safe_cut()`` → ``2.3``; ``pitfall thrash[2] — …`` → ``thrash[2]``."""
    words = item.split()
    return words[1] if words[0] in ("exercise", "pitfall") and len(words) > 1 else item


def findings(person: Participant) -> RenderableType:
    """What a participant should look at: the exercises and cells that earned nothing, grouped
    by what happened (a failing one with its first failing assertion), ignored edits, writes
    outside the copy, notes on the submission."""
    total, worth = person.points()
    lines = [Text(f"{person.name}: {total}/{worth}  ({shown(str(person.submission.source))})",
                  style="bold")]
    if person.submission.rejected:
        lines.append(Text(f"  rejected: {person.submission.rejected}", style="bold red"))
        return Group(*lines)
    for finding in person.tampered:
        lines.append(Text(f"  tampered: {finding}", style="bold red"))
    groups: dict[tuple[str, str], list[str]] = {}
    for s in person.scored:
        if s.status == "TAMPERED":
            continue
        if s.status not in EARNS:
            detail = "" if s.status == "TODO" else s.detail
            groups.setdefault((s.status, detail), []).append(_short(s.item))
    for (status, detail), items in groups.items():
        lines.append(Text(f"  {status}: {', '.join(items)}" + (f" — {detail}" if detail else "")))
    for edit in person.ignored_edits:
        lines.append(Text(f"  ignored edit: {edit}"))
    for path in person.outside:
        lines.append(Text(f"  wrote (or tried to) outside its copy: {path}", style="bold red"))
    for note in person.notes:
        lines.append(Text(f"  note: {note}"))
    return Group(*lines)


def show(console: Console, room: list[Participant], stages: list[int], *,
         jailed: bool = True) -> None:
    console.print(scoreboard(room, stages))
    console.print(CAPTION, highlight=False)
    if not jailed:
        console.print(UNJAILED, style="bold red", highlight=False)
    for person in sorted(room, key=lambda p: p.name):
        console.print(findings(person))


def to_json(room: list[Participant], stages: list[int], *,
            jailed: bool = True) -> dict[str, Any]:
    return {"stages": stages, "jailed": jailed,
            "graded": sum(not p.submission.rejected for p in room),
            "rejected": sum(bool(p.submission.rejected) for p in room), "participants": [{
        "name": p.name, "source": shown(str(p.submission.source)),
        "rejected": p.submission.rejected, "tampered": p.tampered,
        "total": p.points()[0], "max": p.points()[1],
        "stages": {str(n): {"points": p.points(n)[0], "max": p.points(n)[1],
                            "run": p.runs[n], "seconds": p.seconds[n]} for n in stages},
        "exercises": [asdict(s) for s in p.scored],
        "ignored_edits": p.ignored_edits, "outside_writes": p.outside, "notes": p.notes,
    } for p in room]}


def to_csv(room: list[Participant], stages: list[int]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["participant", "total", "max", *[f"s{n}" for n in stages],
                     *[f"s{n}_max" for n in stages], "marks"])
    for p in room:
        writer.writerow([p.name, *p.points(), *[p.points(n)[0] for n in stages],
                         *[p.points(n)[1] for n in stages], "; ".join(flags(p))])
    return out.getvalue()
