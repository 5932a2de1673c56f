"""The total bill, as a chart (guide §12.1, §14 stage 5 step 4).

Takes the rows of ``ctxlab.report.compare.compare`` (one run summary per version, as dicts) and
draws two panels side by side: token-per-task — every input and output token of every call,
summaries and retries included — and the dollar cost, where the prompt cache shows. A run
that did not finish the task is hatched and marked: its bill is for a task not done.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from .figure import add_caveat, new_figure, token_axis


def bill_label(row: dict[str, Any]) -> str:
    """``stage 3`` for a stage number, the name itself otherwise (``keep-everything``)."""
    stage = row["stage"]
    return f"stage {stage}" if isinstance(stage, int) else str(stage)


def plot_bill(rows: Sequence[dict[str, Any]], *, title: str | None = None) -> Figure:
    """Tokens per task and cost per version; failed runs hatched and labelled."""
    labels = [bill_label(r) for r in rows]
    failed = [not r["success"] for r in rows]
    fig = new_figure(11, 4.2)
    left, right = fig.subplots(1, 2)
    panels = ((left, "tokens_per_task", "tokens per task (all calls, input + output)"),
              (right, "cost_usd", "cost in USD (price table, cache included)"))
    for ax, key, ylabel in panels:
        values = [r[key] for r in rows]
        bars = ax.bar(labels, values, color=["white" if f else "tab:blue" for f in failed],
                      edgecolor="tab:blue", hatch=["//" if f else "" for f in failed])
        for bar, row, bad in zip(bars, rows, failed, strict=True):
            value = row[key]
            text = f"{value / 1e6:.2f}M" if key == "tokens_per_task" else f"${value:.2f}"
            if key == "cost_usd":
                text += f"\nread {row['cache_read_share']:.0%}"
            if bad:
                text += "\nfailed"
            ax.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        ha="center", va="bottom", fontsize=7, color="red" if bad else "black")
        ax.set_ylabel(ylabel, fontsize=9)
        ax.set_ylim(0, max(values, default=1) * 1.3)
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        ax.grid(alpha=0.3, axis="y")
    token_axis(left)
    scenario = rows[0]["scenario"] if rows else ""
    fig.suptitle(title or f"The total bill on {scenario}: hatched = the task was not done")
    add_caveat(fig, "'read' = share of input tokens read from the prompt cache.")
    return fig
