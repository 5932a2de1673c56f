"""The table of ``ctxlab replay`` over several logs: one block per session tree (§11, §12.1).

A session's row is its main thread; each sidechain follows on a row of its own (``└ kind
agent``), and a tree with sidechains ends with its total. Sidechains whose main thread is
absent sit under a row that says so. The money columns are what the log's own usage cost
(``log``, each usage billed once) and what the replayed stage would have cost with a cache
breakpoint on the last message (``zones``). It reads at 80 columns.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ctxlab.tokens import CAVEAT
from ctxlab.view.tables import fmt_percent

from .report import ReplayReport
from .tree import MemberReport, TreeReport

SHORT = {"microcompact": "micro", "blocking": "block", "truncate": "trunc"}
"""Layer names as the table shows them, to leave the numbers room."""
NAME_WIDTH = 24  # a file column that leaves the numbers room at 80 columns
COLUMNS = ("file", "req", "viol", "layers fired", "peak", "log", "zones")


def short_name(name: str, width: int = NAME_WIDTH) -> str:
    """``name`` in at most ``width`` characters: a third from its start (the project), the rest
    from its end (the file), an ellipsis between."""
    if len(name) <= width:
        return name
    head = (width - 1) // 3
    return name[:head] + "…" + name[len(name) - (width - 1 - head):]


def _usd(x: float) -> str:
    """Dollars to the cent: the table has no room for fractions of a cent."""
    return f"${x:,.2f}"


def _label(member: MemberReport, session: str | None, shared: set[str]) -> str:
    """A parent by its file (with its session when another session shares the file), a
    sidechain as ``└ kind agent``."""
    if member.kind is None:
        name = member.report.file
        return short_name(f"{session[:8]}@{name}" if name in shared and session else name)
    kind = member.kind.kind
    return f"└ {kind} {short_name(member.agent or member.report.file, NAME_WIDTH - 3 - len(kind))}"


def _row(table: Table, label: str, r: ReplayReport) -> None:
    fired = " ".join(f"{SHORT.get(name, name)}\u00a0{t.triggers}"
                     for name, t in r.layers().items()) or "-"
    table.add_row(escape(label), str(len(r.points)),
                  f"[red]{len(r.violations)}[/]" if r.violations else "0", escape(fired),
                  fmt_percent(r.peak_occupancy), _usd(r.bill.recorded_usd),
                  _usd(r.bill.with_zones_usd))


def _blocks(trees: Sequence[TreeReport]) -> list[tuple[str | None, bool, list[MemberReport]]]:
    """Per block of rows: its session, whether its parent is absent, its members in order
    (the orphan sidechains of one session share a block)."""
    blocks: list[tuple[str | None, bool, list[MemberReport]]] = []
    for tree in trees:
        if tree.orphan and blocks and blocks[-1][1] and blocks[-1][0] == tree.session:
            blocks[-1][2].append(tree.root)
        else:
            blocks.append((tree.session, tree.orphan, tree.members))
    return blocks


def overview(trees: Sequence[TreeReport]) -> RenderableType:
    """One block of rows per session, a totals line, and a note for each log that gave
    nothing to replay."""
    members = [m for t in trees for m in t.members]
    reports = [m.report for m in members]
    blocks = _blocks(trees)
    sessions = len(blocks)  # not the ids: a file with none is a session of its own
    footers = {"file": f"{sessions} sessions, {len(reports)} threads",
               "req": f"{sum(len(r.points) for r in reports):,}",
               "viol": str(sum(len(r.violations) for r in reports)),
               "layers fired": f"{sum(t.triggers for r in reports for t in r.layers().values()):,}",
               "peak": fmt_percent(max((r.peak_occupancy for r in reports), default=0.0)),
               "log": _usd(sum(r.bill.recorded_usd for r in reports)),
               "zones": _usd(sum(r.bill.with_zones_usd for r in reports))}
    table = Table(title="Replays, a block per session (log: its recorded usage; zones: the "
                        "stage with a cache breakpoint)", title_justify="left",
                  caption=CAVEAT, caption_justify="left", show_footer=True)
    for column in COLUMNS:
        table.add_column(column, footers[column], no_wrap=column == "file",
                         justify="left" if column in ("file", "layers fired") else "right")
    roots = [t.root.report.file for t in trees if not t.orphan]
    shared = {name for name in roots if roots.count(name) > 1}  # a file of several sessions
    for session, absent, block in blocks:
        if absent:
            table.add_row(escape(f"parent absent: {(session or '')[:8]}"), *[""] * 6,
                          style="yellow")
        for member in block:
            _row(table, _label(member, session, shared), member.report)
        if not absent and len(block) > 1:
            rs = [m.report for m in block]
            table.add_row("  = tree", f"{sum(len(r.points) for r in rs):,}",
                          str(sum(len(r.violations) for r in rs)), "", "",
                          _usd(sum(r.bill.recorded_usd for r in rs)),
                          _usd(sum(r.bill.with_zones_usd for r in rs)), style="bold")
        table.rows[-1].end_section = True
    empty = [Text(f"{r.file}: {r.imported.notes[0]}", style="yellow") for r in reports
             if not r.points and r.imported.notes]
    return Group(table, *empty) if empty else table

