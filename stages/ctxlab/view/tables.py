"""Rich tables: every call of a run, and runs side by side (§2, §12.1, §14 stage 1 step 4).

The per-call table puts the local chars/4 estimate next to the API-reported count on every
row, so the gap between them is always in view (§9.5). The run table is the "total bill":
token-per-task, not tokens per turn, decides which version is cheaper (§12.1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ctxlab.telemetry import PATHOLOGICAL_RUN, RunSummary, TurnRecord
from ctxlab.tokens import CAVEAT
from ctxlab.view.errors import reason
from ctxlab.view.fit import compact_table, figures, fitted

EVENTS_MIN_WIDTH = 24  # narrower, one compaction wraps over many lines: events go under


def fmt_tokens(n: int) -> str:
    return f"{n:,}"


def fmt_usd(x: float) -> str:
    return f"${x:,.4f}"


def fmt_percent(x: float) -> str:
    return f"{x:.1%}"


def events(record: TurnRecord) -> str:
    """Compactions, thrash and errors of one call, in a few words (an estimated figure
    freed with the band its layer states)."""
    parts = [escape(f"{c['layer']} -{c['tokens_freed']:,}"
                    + (f" ±{c['freed_error']:,}" if c.get("freed_error") else "")
                    + f" ({c['trigger']})") for c in record.compactions]
    if record.thrash:
        parts.append("[yellow]thrash[/]")
    if record.error is not None:
        parts.append(f"[red]{escape(record.error['type'])}[/]")
    return ", ".join(parts)


def turn_table(records: Sequence[TurnRecord], *, title: str | None = None) -> Table:
    """One row per model call: what was sent, what the API reported, the cost, the occupancy."""
    table = Table(title=title, caption=f"estimated = chars/4; reported = API usage. {CAVEAT}",
                  caption_justify="left")
    figures(table, "turn")
    table.add_column("kind", no_wrap=True)
    figures(table, "msgs", "estimated\ntokens", "reported\ntokens", "cache\nread",
            "cache\nwrite", "output", "cost", "occupancy")
    table.add_column("events", min_width=EVENTS_MIN_WIDTH)
    for r in records:
        counts = (r.estimated_tokens, r.reported_input_tokens, r.cache_read_tokens,
                  r.cache_write_tokens, r.output_tokens)
        table.add_row(str(r.turn), r.kind, str(r.messages), *map(fmt_tokens, counts),
                      fmt_usd(r.cost_usd), fmt_percent(r.occupancy), events(r))
    return table


def compact_turn_table(records: Sequence[TurnRecord], *, title: str | None = None,
                       events_column: bool = False) -> Group:
    """The same calls in nine short figure columns; kinds and events in a column of their
    own when ``events_column``, else on lines of their own under the table."""
    table = compact_table(title=title, caption=f"est. = chars/4; input = API-reported input "
                          f"(uncached + cache read + cache write). {CAVEAT}")
    figures(table, "turn", "msgs", "est.", "input", "cache\nread", "cache\nwrite", "out",
            "cost", "occ.")
    if events_column:
        table.add_column("events", min_width=EVENTS_MIN_WIDTH)
    for r in records:
        counts = (r.estimated_tokens, r.reported_input_tokens, r.cache_read_tokens,
                  r.cache_write_tokens, r.output_tokens)
        news = [news_of(r)] if events_column else []
        table.add_row(str(r.turn), str(r.messages), *map(fmt_tokens, counts),
                      fmt_usd(r.cost_usd), fmt_percent(r.occupancy), *news)
    return Group(table, *([] if events_column else event_lines(records)))


def _kind(record: TurnRecord) -> str:
    return "" if record.kind == "agent" else f"({record.kind} call)"


def news_of(record: TurnRecord) -> str:
    """``(summary call) snip -12,000 ([auto] 80%)``: a call's kind, when not the agent's,
    and its events; empty when it has neither."""
    return " ".join(part for part in (_kind(record), events(record)) if part)


def event_lines(records: Sequence[TurnRecord]) -> list[Text]:
    """``turn 12 (summary call): snip -12,000 ([auto] 80%)``: one line per call with news."""
    return [Text.from_markup(f"turn {' '.join(filter(None, (str(r.turn), _kind(r))))}: "
                             f"{events(r) or '-'}") for r in records if news_of(r)]


def turn_view(console: Console, records: Sequence[TurnRecord], *,
              title: str | None = None) -> RenderableType:
    """The per-call table in the layout that fits ``console``: the full one, else the
    compact one with its events column, else with its events under the table."""
    return fitted(console, [lambda: turn_table(records, title=title),
                            lambda: compact_turn_table(records, title=title, events_column=True),
                            lambda: compact_turn_table(records, title=title)])


def _per_layer(counts: dict[str, int]) -> str:
    return escape(", ".join(f"{layer}: {n:,}" for layer, n in sorted(counts.items()))) or "-"


def _unchanged_run(s: RunSummary) -> str:
    text = str(s.longest_unchanged_run)
    return f"[red]{text} (≥{PATHOLOGICAL_RUN})[/]" if s.thrash_pathological else text


ROWS: tuple[tuple[str, Callable[[RunSummary], str]], ...] = (
    ("success", lambda s: "[green]yes[/]" if s.success else "[red]no[/]"),
    ("error", lambda s: escape(reason(s.error["message"])) if s.error else "-"),
    ("turns", lambda s: str(s.turns)),
    ("tokens per task", lambda s: fmt_tokens(s.tokens_per_task)),
    ("cost", lambda s: fmt_usd(s.cost_usd)),
    ("cache read share", lambda s: fmt_percent(s.cache_read_share)),
    ("peak occupancy", lambda s: fmt_percent(s.peak_occupancy)),
    ("duplicate call rate", lambda s: fmt_percent(s.duplicate_call_rate)),
    ("longest unchanged run", _unchanged_run),
    ("facts in view not found", lambda s: str(len(s.misses))),
    ("compactions", lambda s: _per_layer(s.compactions_per_layer)),
    ("tokens freed", lambda s: _per_layer(s.tokens_freed_per_layer)),
    ("re-trigger after compaction", lambda s: str(s.retrigger_after_compaction)),
    ("summary calls", lambda s: str(s.summary_calls)),
    ("failed calls", lambda s: str(s.failures)),
    ("most failures in a row", lambda s: str(s.consecutive_failures)),
)


BILL_CAPTION = ("tokens per task = every input and output token of every call, summaries "
                f"included (§12.1). {CAVEAT}")


def _label(run: RunSummary, one_task: bool) -> str:
    label = ("keep all" if run.stage == "keep-everything" else
             f"stage {run.stage}" if isinstance(run.stage, int) else str(run.stage))
    return label if one_task else f"{label}\n{run.scenario}"


def _cheapest(runs: Sequence[RunSummary]) -> Callable[[RunSummary, str], str]:
    """Marks the lowest token-per-task in bold green when runs are compared."""
    low = min((r.tokens_per_task for r in runs), default=0)
    return lambda r, v: f"[bold green]{v}[/]" if len(runs) > 1 and r.tokens_per_task == low else v


def summary_table(summaries: RunSummary | Sequence[RunSummary], *,
                  title: str | None = None, compact: bool = False) -> Table:
    """One column per run, one row per metric: the total bill, side by side (§12.1)."""
    runs = [summaries] if isinstance(summaries, RunSummary) else list(summaries)
    table = compact_table(title=title, caption=BILL_CAPTION) if compact else Table(
        title=title, caption=BILL_CAPTION, caption_justify="left")
    table.add_column("metric", no_wrap=True)
    one_task = len({run.scenario for run in runs}) == 1
    for run in runs:
        table.add_column(escape(_label(run, one_task)), justify="right")
    mark = _cheapest(runs)
    for name, cell in ROWS:
        values = [cell(r) for r in runs]
        if name == "tokens per task":
            values = [mark(r, v) for r, v in zip(runs, values, strict=True)]
        table.add_row(name, *values)
    return table


def _notes(run: RunSummary) -> str:
    """What the one-row-per-run layout has no column for, in a few words."""
    parts = [f"error: {escape(reason(run.error['message']))}"] if run.error else []
    parts += [f"{escape(layer)} ×{n} freed {run.tokens_freed_per_layer.get(layer, 0):,}"
              for layer, n in sorted(run.compactions_per_layer.items())]
    for name, value in (("longest unchanged run", _unchanged_run(run)),
                        ("re-trigger after compaction", run.retrigger_after_compaction),
                        ("summary calls", run.summary_calls),
                        ("most failures in a row", run.consecutive_failures)):
        if str(value) != "0":
            parts.append(f"{name} {value}")
    return "; ".join(parts)


def runs_table(runs: Sequence[RunSummary], *, title: str | None = None) -> Group:
    """The compact bill: one row per run, eight short figure columns; the rest under it."""
    table = compact_table(title=title, caption=BILL_CAPTION)
    table.add_column("run", no_wrap=True)
    figures(table, "done", "turns", "tokens\nper task", "cost", "cache\nread", "peak\nocc.",
            "dup.\ncalls", "failed\ncalls")
    one_task = len({run.scenario for run in runs}) == 1
    mark = _cheapest(runs)
    for r in runs:
        table.add_row(escape(_label(r, one_task)), ROWS[0][1](r), str(r.turns),
                      mark(r, fmt_tokens(r.tokens_per_task)), fmt_usd(r.cost_usd),
                      fmt_percent(r.cache_read_share), fmt_percent(r.peak_occupancy),
                      fmt_percent(r.duplicate_call_rate), str(r.failures))
    notes = [Text.from_markup(f"{escape(_label(r, one_task))}: {note}".replace("\n", " "))
             for r in runs if (note := _notes(r))]
    return Group(table, *notes)


def summary_view(console: Console, summaries: RunSummary | Sequence[RunSummary], *,
                 title: str | None = None) -> RenderableType:
    """The bill in the layout that fits ``console``: runs as columns, else runs as rows."""
    runs = [summaries] if isinstance(summaries, RunSummary) else list(summaries)
    return fitted(console, [lambda: summary_table(runs, title=title),
                            lambda: summary_table(runs, title=title, compact=True),
                            lambda: runs_table(runs, title=title)])
