"""The processes of ``ctxlab replay --jobs N`` (issue 49): the reading and the replays handed
out to N processes forked from this one, the costliest first, their results given back in
the order of the items, the same to the byte as one process gives them, and a progress bar
that counts each item when it is done.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TypeVar

from rich.console import Console

from ..replay.group import Tree
from ..tokens import encoding
from ..view import progress
from .common import UserError

T = TypeVar("T")
R = TypeVar("R")


def processes(jobs: int, files: int) -> AbstractContextManager[ProcessPoolExecutor | None]:
    """``jobs`` processes for the reading and the replays (none for one job or one file),
    forked (whatever the platform's default), so they start at once with what this one has
    loaded: its choice of implementation, the stage's modules, and, loaded here first, the
    tokenizer every replay needs."""
    if jobs == 1 or files < 2:
        return nullcontext()
    if "fork" not in multiprocessing.get_all_start_methods():
        raise UserError("--jobs needs processes forked from this one (Linux, macOS, WSL); "
                        "replay with --jobs 1 here")
    encoding()
    return ProcessPoolExecutor(min(jobs, files), mp_context=multiprocessing.get_context("fork"))


def in_order(pool: Executor | None, work: Callable[[T], R], items: Sequence[T],
             cost: Callable[[T], int]) -> Iterator[list[R]]:
    """``work`` of each item, in the order given, as one batch each time an item is done: here
    (a batch of one), or in ``pool`` with the costliest items handed out first (now, so the
    processes fork before a progress bar starts its thread), so that a long one does not
    start last and keep one process busy alone."""
    if pool is None or len(items) < 2:
        return ([work(item)] for item in items)
    futures = {i: pool.submit(work, items[i])
               for i in sorted(range(len(items)), key=lambda i: -cost(items[i]))}
    return _results([futures[i] for i in range(len(items))])


def _results(futures: list[Future[R]]) -> Iterator[list[R]]:
    """As each future is done, the results that are now next in order (none while an earlier
    one runs; an error is raised in its turn); on an error, or when the caller stops early,
    what has not started is cancelled."""
    place = {future: i for i, future in enumerate(futures)}
    done: set[int] = set()
    next_up = 0
    try:
        for future in as_completed(futures):
            done.add(place[future])
            ready = []
            while next_up in done and not (ready and futures[next_up].exception()):
                ready.append(futures[next_up].result())
                next_up += 1
            yield ready
        for future in futures[next_up:]:  # an error held back until what came before it
            future.result()
    finally:
        for future in futures:
            future.cancel()


def shown(batches: Iterable[list[R]], description: str, total: int, console: Console
          ) -> Iterator[R]:
    """The results of ``batches`` one by one, a progress bar counting each item when it is
    done (not when its turn in the output comes)."""
    for batch in progress(batches, description, total=total, console=console):
        yield from batch


def file_size(path: Path) -> int:
    """The size of a file (0 when it cannot be read: ``scan`` says why)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def tree_bytes(tree: Tree) -> int:
    """The size on disk of a tree's files: how long its replay takes, roughly."""
    return sum(file_size(path) for member in tree.members for path in member.paths)
