"""``ctxlab watch [N]``: grade a stage again every time one of its files is saved.

The table is ``ctxlab grade``'s own (this command runs it), followed by the next hint
command. File events come from the ``watchfiles`` library; where the operating system does not
deliver them (a network drive, some container bind mounts, a Windows drive under WSL),
``--poll`` makes the same library compare the files' modification times instead.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from pathlib import Path

from rich.console import Console
from watchfiles import Change, PythonFilter, watch

from ..workbook.lang import chinese
from ..workbook.layout import STAGES, Stage, impl_root, stage
from . import grade_cmd
from .common import UserError

Batch = set[tuple[Change, str]]


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "watch",
        description="Grade your workbook (as `ctxlab grade` does) now and again after every "
                    "save in stages/sN_*/. Ctrl-C stops. If saving does not trigger a new "
                    "grade (network drives, some containers, WSL on a Windows drive), add "
                    "--poll, or run `ctxlab grade N` after each save.")
    parser.add_argument("stage", type=int, nargs="?",
                        help="the stage to watch (default: every stage; a save grades the "
                             "stage it belongs to)")
    parser.add_argument("--chain", choices=("reference", "mine"), default="reference",
                        help="other stages from the reference (default) or your workbook")
    parser.add_argument("--poll", action="store_true",
                        help="poll the files' modification times instead of waiting for file "
                             "events (where events do not arrive)")
    parser.set_defaults(run=run)


def grade_args(number: int, chain: str) -> argparse.Namespace:
    """The arguments ``ctxlab grade N --chain C`` would get, defaults included."""
    parser = argparse.ArgumentParser(prog="ctxlab")
    grade_cmd.register(parser.add_subparsers())
    return parser.parse_args(["grade", str(number), "--chain", chain])


def touched(batch: Batch, watched: dict[Path, Stage]) -> list[Stage]:
    """The watched stages a batch of file changes belongs to, in stage order."""
    hit = {s.number: s for change, path in batch for root, s in watched.items()
           if Path(path).resolve().is_relative_to(root)}
    return [hit[n] for n in sorted(hit)]


def watch_loop(watched: dict[Path, Stage], batches: Iterable[Batch],
               grade: Callable[[Stage], None], console: Console) -> int:
    """Grade every watched stage, then each stage again when a batch touches it."""
    def show(stages: list[Stage]) -> None:
        if console.is_terminal:
            console.clear()
        for s in stages:
            grade(s)
        folders = ", ".join(f"stages/{s.package}" for s in watched.values())
        console.print(f"[dim]正在监视 {folders}：保存文件即重新评分；Ctrl-C 退出"
                      "（保存后没有重新评分？加 --poll）[/]" if chinese() else
                      f"[dim]watching {folders}: save a file to grade again; Ctrl-C stops "
                      "(no new grade on save? add --poll)[/]", highlight=False)

    show(sorted(watched.values(), key=lambda s: s.number))
    try:
        for batch in batches:
            stages = touched(batch, watched)
            if stages:
                show(stages)
    except KeyboardInterrupt:
        pass
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        stages = [stage(args.stage)] if args.stage else list(STAGES)
    except ValueError as error:
        raise UserError(str(error)) from None
    root = impl_root("stages")
    watched = {(root / s.package).resolve(): s for s in stages if (root / s.package).is_dir()}
    if not watched:
        raise UserError(f"no stage package to watch under {root}")
    batches = watch(*watched, watch_filter=PythonFilter(), force_polling=args.poll or None)
    return watch_loop(watched, batches,
                      lambda s: grade_cmd.run(grade_args(s.number, args.chain)), Console())
