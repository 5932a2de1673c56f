"""A live dashboard for one run: latest calls, window occupancy, running totals (§2, §14 stage 1).

On a terminal it redraws in place with ``rich.live.Live``. Anywhere else (tests, pipes, CI
logs) it draws nothing while the run goes on, and both cases end with the same full table.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from ctxlab import models
from ctxlab.telemetry import TurnRecord
from ctxlab.view.tables import fmt_percent, fmt_tokens, fmt_usd, turn_view

BAR_MAX, BAR_MIN = 40, 10
BAR_TEXT = 50  # "occupancy", then "100.0% (1,000,000 of 1,000,000 tokens)" beside the bar


def occupancy_style(occupancy: float) -> str:
    """Green while the window is under half full, yellow up to 80 %, red beyond."""
    if occupancy < 0.5:
        return "green"
    return "yellow" if occupancy < 0.8 else "red"


def occupancy_bar(record: TurnRecord, *, width: int = 40) -> Table:
    """One line: a bar of the last call's total input against the model's context window."""
    spec = models.lookup(record.model)
    window = f" of {fmt_tokens(spec.context_window)}" if spec else ""
    style = occupancy_style(record.occupancy)
    grid = Table.grid(padding=(0, 1))
    grid.add_row(
        Text("occupancy"),
        ProgressBar(total=1.0, completed=min(record.occupancy, 1.0), width=width,
                    complete_style=style, finished_style=style),
        Text(f"{fmt_percent(record.occupancy)} ({fmt_tokens(record.reported_input_tokens)}"
             f"{window} tokens)", style=style),
    )
    return grid


def totals(records: list[TurnRecord]) -> Text:
    """Cumulative figures so far: calls, tokens (the running total bill, §12.1), cost, peak,
    and the visible facts the model did not find (context rot, §4)."""
    spent = sum(r.total_tokens for r in records)
    cost = sum(r.cost_usd for r in records)
    peak = max((r.occupancy for r in records), default=0.0)
    missed = sum(len(r.misses) for r in records)
    return Text(f"calls {len(records)} · tokens so far {fmt_tokens(spent)} · "
                f"cost {fmt_usd(cost)} · peak occupancy {fmt_percent(peak)} · "
                f"facts missed {missed}")


class Dashboard:
    """Context manager showing a run as it happens; feed it with :meth:`update`. On a terminal
    the view is live; at the end the whole table stays printed unless ``keep`` is false (the
    output is the JSON of ``--json``: only the live view, which leaves nothing behind)."""

    def __init__(self, *, title: str = "ctxlab run", console: Console | None = None,
                 last: int = 8, refresh_per_second: float = 4, keep: bool = True) -> None:
        self.title = title
        self.keep = keep
        self.console = console or Console()
        self.last = last
        self.refresh_per_second = refresh_per_second
        self.records: list[TurnRecord] = []
        self._live: Live | None = None

    def render(self) -> RenderableType:
        """The live view: the latest calls, the occupancy bar, the totals."""
        shown = self.records[-self.last:]
        parts = [turn_view(self.console, shown, title=self.title)]
        if self.records:
            last = self.records[-1]
            width = max(BAR_MIN, min(BAR_MAX, self.console.width - BAR_TEXT))
            parts.append(occupancy_bar(last, width=width))
        parts.append(totals(self.records))
        return Group(*parts)

    def update(self, record: TurnRecord) -> None:
        """Add one call's record and redraw (on a terminal)."""
        self.records.append(record)
        if self._live is not None:
            self._live.update(self.render())

    def __enter__(self) -> Dashboard:
        if self.console.is_terminal:
            self._live = Live(self.render(), console=self.console, transient=True,
                              refresh_per_second=self.refresh_per_second)
            self._live.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
        if not self.records or not self.keep:  # nothing ran (a bad scenario), or --json
            return
        self.console.print(turn_view(self.console, self.records, title=self.title))
        self.console.print(totals(self.records))
