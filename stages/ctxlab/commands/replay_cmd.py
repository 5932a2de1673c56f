"""``ctxlab replay``: a real Claude Code session log through a stage's context layer (DESIGN §6),
or through a layer of your own (``--layer MODULE:FACTORY``, its options with ``--set``).

``ctxlab replay FILE`` shows what the layer would have done, and when; a folder replays every
``*.jsonl`` under it (searched recursively, subagents included) with a progress bar. The
lines of every file given are grouped by session (``replay.group``): a session's main thread
and its sidechains are replayed as one tree, each recorded usage billed once. Sessions are
independent, so ``--jobs N`` reads the files and replays the sessions in N processes, which
send back only what they found (a file's threads, a session's reports); the progress bar
counts each as it is done, and the reports come out in the same order, the same to the byte
(``replay_jobs``). A file that cannot be replayed is reported in one line and the others go
on; the exit status is 2 only when nothing could be replayed.
"""

from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.text import Text

from .. import models, use
from ..replay.discover import DiscoveryError, display_name, find_logs
from ..replay.group import Member, Tree, assemble, scan
from ..replay.lines import MAX_BYTES
from ..replay.tree import TreeReport, replay_tree
from ..workbook.layout import STAGES, impl_root
from . import replay_jobs as jobs
from .common import (
    UserError,
    add_layer_options,
    build_custom,
    check_layer_options,
    positive_int,
    print_json,
)


def tokens(text: str) -> int:
    """A positive token count: ``60000``, ``60_000`` or ``60k``."""
    digits = text.strip().lower().replace("_", "").replace(",", "")
    scale = 1_000 if digits.endswith("k") else 1
    try:
        value = int(digits.removesuffix("k")) * scale
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of tokens, got {text!r}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("replay",
                            description="Feed a recorded Claude Code session (JSONL, e.g. "
                                        "~/.claude/projects/<project>/<session>.jsonl) to a "
                                        "stage's context layer turn by turn and report what it "
                                        "would have done. Offline: the recorded replies "
                                        "stand in for the model. The lines of all the logs "
                                        "given are grouped by session: sub-agents and the "
                                        "compaction call are replayed under their session.")
    parser.add_argument("paths", type=Path, nargs="+", metavar="PATH",
                        help="session logs, or folders searched recursively for *.jsonl logs "
                             "(sessions and their subagents/)")
    parser.add_argument("--stage", type=int, choices=[s.number for s in STAGES],
                        help="stage to replay through (default: the highest built)")
    parser.add_argument("--window", type=tokens,
                        help="pretend the window is this many tokens (to make the layers act)")
    parser.add_argument("--model", help="model for the window and prices (default: the log's "
                                        "when known, else the workbook's default)")
    parser.add_argument("--whole-file", action="store_true",
                        help="replay the whole file, not only what follows the last compaction")
    add_layer_options(parser, what="replay through")
    parser.add_argument("--max-bytes", type=positive_int, default=MAX_BYTES, metavar="N",
                        help="skip logs bigger than N bytes (default 256 MB)")
    parser.add_argument("--jobs", type=positive_int, default=1, metavar="N",
                        help="replay the sessions in N processes (default 1)")
    parser.add_argument("--json", action="store_true", help="print the reports as JSON")
    parser.set_defaults(run=run)


def _stage(requested: int | None) -> int:
    built = [s.number for s in STAGES if (impl_root("solutions") / s.package).exists()]
    stage = requested or max(built)
    if stage not in built:
        raise UserError(f"stage {stage} is not built yet; built stages: "
                        f"{', '.join(map(str, built))}")
    return stage


def run(args: argparse.Namespace) -> int:
    try:
        files = find_logs(args.paths)
    except DiscoveryError as error:
        raise UserError(str(error)) from None
    if args.layer is not None and args.stage is not None:
        raise UserError("replay through --stage or --layer, not both")
    stage = None if args.layer is not None else _stage(args.stage)
    use(args.impl, stage if args.impl == "stages" else None, args.chain)
    if args.model is not None and models.lookup(args.model) is None:
        raise UserError(f"unknown model {args.model!r}; see `ctxlab models`")
    options = dict(args.options)
    if args.layer is not None:  # --set goes to --layer's factory
        build_custom(args.layer, options)
    else:
        check_layer_options(stage, options)
    errors = Console(stderr=True)

    def name(path: Path) -> str:
        return display_name(path, args.paths)

    def skipped(path: Path, why: str) -> None:
        failed.append({"file": name(path), "error": why})
        errors.print(f"[yellow]skipped[/] {escape(name(path))} {escape(why)}",
                     highlight=False, soft_wrap=True)

    failed: list[dict[str, str]] = []
    reports: list[TreeReport] = []
    replay = {"whole_file": args.whole_file, "model": args.model, "window": args.window,
              "options": options, "layer": args.layer}
    with jobs.processes(args.jobs, len(files)) as pool:
        scans = jobs.in_order(pool, partial(scan, max_bytes=args.max_bytes), files,
                              jobs.file_size)
        trees, unread = assemble(jobs.shown(scans, "reading", len(files), errors),
                                 args.max_bytes)
        for path, why in unread:
            skipped(path, why)
        one = partial(_replay, stage=stage, roots=args.paths, replay=replay)
        try:
            for done, bad in jobs.shown(jobs.in_order(pool, one, trees, jobs.tree_bytes),
                                        "replaying", len(trees), errors):
                reports += done
                for member, why in bad:
                    skipped(member.paths[0], why)
        except NotImplementedError as error:
            raise UserError(f"{error} — your workbook stage is not finished yet (`ctxlab "
                            "grade` shows what is left)") from None
    if args.json:
        print_json({"replays": [r.to_dict() for r in reports], "failed": failed})
    elif reports:
        Console().print(_view(reports))
    return 0 if reports else 2


Replayed = tuple[list[TreeReport], list[tuple[Member, str]]]


def _replay(tree: Tree, *, stage: int | None, roots: list[Path],
            replay: dict[str, Any]) -> Replayed:
    """One tree's replays (``replay_tree``), its files named from ``roots``."""
    return replay_tree(tree, stage, partial(display_name, roots=roots), **replay)


def _view(reports: list[TreeReport]) -> RenderableType:
    """One log in full (saying which tree it is part of), several as a table of trees (the
    views are loaded here: ``--json`` never needs them)."""
    from ..replay.treeview import overview
    from ..replay.view import report_view

    if len(reports) > 1 or reports[0].sidechains:
        return overview(reports)
    only = reports[0].root
    if only.kind is None:
        return report_view(only.report)
    said = (f"{only.kind.kind} sidechain {only.agent} ({only.kind.evidence}); "
            f"{reports[0].orphan_note}")
    return Group(Text(said, style="yellow"), report_view(only.report))
