"""The rich report of ``ctxlab replay`` (DESIGN §6; guide §12.6 telemetry, §12.1 total bill).

One replay is shown in full: what the import repaired, how full each request was (a sparkline
of occupancy), which layer fired when and what it freed, the API-rule check, what went to
disk, what removed messages held, and the bill with and without cache zones. Several replays
(a directory, a session with sub-agents) are shown as one table by ``treeview``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ctxlab.tokens import CAVEAT
from ctxlab.view.tables import fmt_percent, fmt_tokens, fmt_usd

from .report import ReplayReport

BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], *, top: float = 1.0, width: int = 60) -> str:
    """``values`` (fractions of ``top``) as block characters, at most ``width`` of them."""
    if len(values) > width:
        step = len(values) / width
        values = [max(values[int(i * step):int((i + 1) * step)] or [0.0]) for i in range(width)]
    return "".join(BARS[min(len(BARS) - 1, int(max(v, 0.0) / top * (len(BARS) - 1)))]
                   for v in values)


def _import_lines(r: ReplayReport) -> list[str]:
    i = r.imported
    lines = [f"{i.lines:,} lines → {r.messages} API messages, {len(r.points)} requests; "
             f"skipped {i.comment_lines} comment and {len(i.broken_lines)} broken lines, "
             f"dropped {i.duplicates_dropped} re-logged copies; {i.usage_records} responses "
             "carry recorded usage"]
    return lines + [f"note: {note}" for note in i.notes]


def _layers(r: ReplayReport) -> RenderableType:
    totals = r.layers()
    if not totals:
        return Text("No layer fired." + (" (stage 1 has no layer)" if r.stage == 1 else ""))
    table = Table(title="What each layer did", title_justify="left")
    for column in ("layer", "triggers", "tokens freed", "at requests"):
        table.add_column(column, justify="left" if column in ("layer", "at requests") else "right")
    for name, t in totals.items():
        table.add_row(escape(name), str(t.triggers), fmt_tokens(t.tokens_freed),
                      ", ".join(map(str, t.turns[:12])) + (" …" if len(t.turns) > 12 else ""))
    return table


def _carry(r: ReplayReport) -> RenderableType | None:
    if not r.carry:
        return None
    table = Table(title="What removed messages held (a summary would have to carry it)",
                  title_justify="left")
    for column in ("request", "layers", "removed", "user msgs", "lost", "files", "lost files"):
        table.add_column(column, justify="right" if column in ("request", "removed",
                                                               "user msgs", "lost") else "left")
    for c in r.carry[:10]:
        table.add_row(str(c.turn), escape(", ".join(c.layers) or "-"), str(c.messages_removed),
                      str(c.user_messages), str(len(c.lost_user_messages)), str(len(c.files)),
                      escape(", ".join(c.lost_files[:3]) + (" …" if len(c.lost_files) > 3
                                                            else "")))
    return table


def _bill(r: ReplayReport) -> RenderableType:
    b = r.bill
    table = Table(title=f"Estimated bill at {b.model} prices", title_justify="left")
    table.add_column("")
    table.add_column("cost", justify="right")
    table.add_row("every request at full input price", fmt_usd(b.without_zones_usd))
    table.add_row(f"with a cache breakpoint on the last message (saves {b.saving:.0%})",
                  fmt_usd(b.with_zones_usd))
    if b.recorded_requests:
        table.add_row(f"what the log's own usage cost (all {b.recorded_requests} responses)",
                      fmt_usd(b.recorded_usd))
    if b.summary_calls:
        table.add_row(f"summary calls made by the layers ({b.summary_calls})",
                      fmt_usd(b.summary_usd))
    return table


def report_view(r: ReplayReport) -> RenderableType:
    """Everything one replay found."""
    occupancy = [p.occupancy for p in r.points]
    overhead = max((p.overhead for p in r.points), default=0)
    parts: list[RenderableType] = [
        Text(f"{r.file} · {r.through} · {r.model} ({r.model_note}) · window "
             f"{r.window:,} ({r.window_note})", style="bold"),
        *(Text(escape(line)) for line in _import_lines(r)),
        Text(f"occupancy per request (0–100 % of the window): {sparkline(occupancy)} "
             f"peak {fmt_percent(r.peak_occupancy)}"),
        Text(f"sizes include up to {fmt_tokens(overhead)} tokens that the log's usage shows "
             "beyond its messages (system prompt, tool definitions, tokenizer gap): no layer "
             "sees them, so a window below that is always overfull", style="dim"),
        _layers(r),
        Text(f"API rules: {r.checks} checks, {len(r.violations)} violations",
             style="red" if r.violations else "green"),
        *(Text(escape(f"  request {v.turn} after {v.hook}: {v.message}"), style="red")
          for v in r.violations[:3]),
        *(Text(escape(e), style="yellow") for e in r.errors[:3]),
        Text(f"written to disk: {len(r.disk)} files, {sum(r.disk.values()):,} bytes"),
    ]
    carry = _carry(r)
    if carry is not None:
        parts.append(carry)
    parts += [_bill(r), Text(CAVEAT, style="dim")]
    return Group(*parts)
