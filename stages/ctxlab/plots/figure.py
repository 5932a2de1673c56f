"""Shared figure helpers: a fresh Figure, the tokenizer caveat, token and turn axes."""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from ctxlab.tokens import CAVEAT

COLORS = {
    "reported": "tab:blue",
    "estimated": "tab:orange",
    "window": "black",
    "threshold": "tab:red",
    "event": "tab:purple",
    "error": "red",
    "thrash": "tab:red",
}


def new_figure(width: float = 9.0, height: float = 4.5) -> Figure:
    """A Figure not registered with pyplot: no GUI backend, no global state, no leak."""
    return Figure(figsize=(width, height), layout="constrained")


def add_caveat(fig: Figure, extra: str = "", *, tokens: bool = True) -> None:
    """Put a note under the chart: ``extra``, then the tokenizer caveat when ``tokens`` (DESIGN
    §2: say it wherever counts are shown)."""
    text = " ".join(part for part in (extra, CAVEAT if tokens else "") if part)
    fig.supxlabel(text, fontsize=7, color="grey", ha="left", x=0.01)


def _tokens(value: float, _position: int) -> str:
    if abs(value) >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if abs(value) >= 1_000:
        return f"{value / 1_000:g}K"
    return f"{value:g}"


def token_axis(ax: Axes, axis: str = "y") -> None:
    """Label an axis in tokens with K/M suffixes."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(FuncFormatter(_tokens))


def turn_axis(ax: Axes, axis: str = "x") -> None:
    """Ticks on whole numbers only: there is no turn 2.5."""
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_locator(MaxNLocator(integer=True))
