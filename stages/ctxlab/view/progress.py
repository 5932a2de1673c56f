"""A progress bar for long jobs, e.g. replaying a directory of session logs (DESIGN §6)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sized
from typing import TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

T = TypeVar("T")


def progress(iterable: Iterable[T], description: str, total: int | None = None, *,
             console: Console | None = None) -> Iterator[T]:
    """Yield the items of ``iterable`` while drawing a progress bar.

    ``total`` defaults to ``len(iterable)`` when it has one. The bar is drawn only on a
    terminal, so piped output (``--json``) stays clean.
    """
    if total is None and isinstance(iterable, Sized):
        total = len(iterable)
    console = console or Console(stderr=True)
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                   MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                   console=console, disable=not console.is_terminal)
    with bar:
        yield from bar.track(iterable, total=total, description=description)
