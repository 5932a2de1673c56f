"""Rich tables: every call of a run, and runs side by side (§2, §12.1, §14 stage 1 step 4).

The per-call table puts the local chars/4 estimate next to the API-reported count on every
row, so the gap between them is always in view (§9.5). The run table is the "total bill":
token-per-task, not tokens per turn, decides which version is cheaper (§12.1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.markup import escape
from rich.table import Table

from ctxlab.telemetry import PATHOLOGICAL_RUN, RunSummary, TurnRecord
from ctxlab.tokens import CAVEAT


def fmt_tokens(n: int) -> str:
    return f"{n:,}"


def fmt_usd(x: float) -> str:
    return f"${x:,.4f}"


def fmt_percent(x: float) -> str:
    return f"{x:.1%}"


def events(record: TurnRecord) -> str:
    """Compactions, thrash and errors of one call, in a few words."""
    parts = [escape(f"{c['layer']} -{c['tokens_freed']:,} ({c['trigger']})")
             for c in record.compactions]
    if record.thrash:
        parts.append("[yellow]thrash[/]")
    if record.error is not None:
        parts.append(f"[red]{escape(record.error['type'])}[/]")
    return ", ".join(parts)


def turn_table(records: Sequence[TurnRecord], *, title: str | None = None) -> Table:
    """One row per model call: what was sent, what the API reported, the cost, the occupancy."""
    table = Table(title=title, caption=f"estimated = chars/4; reported = API usage. {CAVEAT}",
                  caption_justify="left")
    table.add_column("turn", justify="right")
    table.add_column("kind")
    for name in ("msgs", "estimated\ntokens", "reported\ntokens", "cache\nread", "cache\nwrite",
                 "output", "cost", "occupancy"):
        table.add_column(name, justify="right")
    table.add_column("events", overflow="fold")
    for r in records:
        counts = (r.estimated_tokens, r.reported_input_tokens, r.cache_read_tokens,
                  r.cache_write_tokens, r.output_tokens)
        table.add_row(str(r.turn), r.kind, str(r.messages), *map(fmt_tokens, counts),
                      fmt_usd(r.cost_usd), fmt_percent(r.occupancy), events(r))
    return table


def _per_layer(counts: dict[str, int]) -> str:
    return escape(", ".join(f"{layer}: {n:,}" for layer, n in sorted(counts.items()))) or "-"


def _unchanged_run(s: RunSummary) -> str:
    text = str(s.longest_unchanged_run)
    return f"[red]{text} (≥{PATHOLOGICAL_RUN})[/]" if s.thrash_pathological else text


ROWS: tuple[tuple[str, Callable[[RunSummary], str]], ...] = (
    ("success", lambda s: "[green]yes[/]" if s.success else "[red]no[/]"),
    ("error", lambda s: escape(s.error["type"]) if s.error else "-"),
    ("turns", lambda s: str(s.turns)),
    ("tokens per task", lambda s: fmt_tokens(s.tokens_per_task)),
    ("cost", lambda s: fmt_usd(s.cost_usd)),
    ("cache read share", lambda s: fmt_percent(s.cache_read_share)),
    ("peak occupancy", lambda s: fmt_percent(s.peak_occupancy)),
    ("duplicate call rate", lambda s: fmt_percent(s.duplicate_call_rate)),
    ("longest unchanged run", _unchanged_run),
    ("compactions", lambda s: _per_layer(s.compactions_per_layer)),
    ("tokens freed", lambda s: _per_layer(s.tokens_freed_per_layer)),
    ("re-trigger after compaction", lambda s: str(s.retrigger_after_compaction)),
    ("summary calls", lambda s: str(s.summary_calls)),
    ("failed calls", lambda s: str(s.failures)),
    ("most failures in a row", lambda s: str(s.consecutive_failures)),
)


def summary_table(summaries: RunSummary | Sequence[RunSummary], *,
                  title: str | None = None) -> Table:
    """One column per run, one row per metric: the total bill, side by side (§12.1)."""
    runs = [summaries] if isinstance(summaries, RunSummary) else list(summaries)
    table = Table(title=title, caption=f"tokens per task = every input and output token of "
                  f"every call, summaries included (§12.1). {CAVEAT}", caption_justify="left")
    table.add_column("metric")
    one_task = len({run.scenario for run in runs}) == 1
    for run in runs:
        label = "keep all" if run.stage == "keep-everything" else f"stage {run.stage}"
        header = label if one_task else f"{label}\n{run.scenario}"
        table.add_column(escape(header), justify="right", overflow="fold")
    cheapest = min((r.tokens_per_task for r in runs), default=0)
    for name, cell in ROWS:
        values = [cell(r) for r in runs]
        if name == "tokens per task" and len(runs) > 1:
            values = [f"[bold green]{v}[/]" if r.tokens_per_task == cheapest else v
                      for r, v in zip(runs, values, strict=True)]
        table.add_row(name, *values)
    return table
