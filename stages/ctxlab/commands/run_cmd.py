"""``ctxlab run``: one stage on one scenario, with a live dashboard (DESIGN §6, guide §14).

A run that the API stops (``prompt is too long``, a broken history) is an outcome, not a
crash: it is shown explained, and ``--json`` reports it in ``error``. ``--workspace DIR`` keeps
the run's workspace; ``--resume`` continues a run killed in it, from its session journal.
"""

from __future__ import annotations

import argparse
import shlex
from contextlib import nullcontext
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from .. import models, runner, use
from ..journal import JournalError, resumable
from ..runner import KEEP_EVERYTHING as KEEP
from ..scenarios import ScenarioError, load, names
from ..telemetry import SessionLog, TurnRecord
from ..tools import LIVE_ALLOWED_PROGRAMS
from ..tools.safe_path import UnsafePathError
from ..view import Dashboard, explain_error, summary_view
from ..workbook.blame import blame
from ..workbook.layout import STAGES, impl_root
from .common import (
    UserError,
    add_layer_options,
    add_rot_option,
    add_subagent_options,
    build_custom,
    check_layer_options,
    delegation,
    positive_int,
    print_json,
)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("run",
                            description="Run one stage's context layer on a scenario against "
                                        "the offline API and report the total bill.")
    parser.add_argument("--stage", type=int, choices=[s.number for s in STAGES],
                        help="stage to run (default: the highest with a reference solution)")
    parser.add_argument("--keep-everything", action="store_true",
                        help="no context layer at all (the baseline of the total bill)")
    parser.add_argument("--scenario", default="long-task",
                        help=f"scenario name (default long-task); one of: {', '.join(names())}")
    parser.add_argument("--model", help="model id (default: the scenario's; see ctxlab models)")
    add_layer_options(parser)
    add_subagent_options(parser)
    parser.add_argument("--seed", type=int, default=0, help="the simulated agent's seed")
    parser.add_argument("--max-turns", type=positive_int, metavar="N",
                        help="stop after N turns (N ≥ 1; default: 3 per scenario step + 20)")
    parser.add_argument("--live", action="store_true",
                        help="use the real API (needs ANTHROPIC_API_KEY; costs money); its "
                             "commands run on this machine, so run_command runs only "
                             f"{', '.join(sorted(LIVE_ALLOWED_PROGRAMS))}")
    parser.add_argument("--allow-any-command", action="store_true",
                        help="with --live: also run commands outside that allow-list (each is "
                             "announced before it runs)")
    parser.add_argument("--workspace", type=Path,
                        help="run in this folder (missing or empty) and keep it afterwards")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run killed in --workspace, from its session journal")
    parser.add_argument("--log", help="append the run's telemetry (JSONL: one record per model "
                                      "call, then the summary) to this file")
    parser.add_argument("--export-log", type=Path, metavar="FILE",
                        help="write the conversation to this new file as a Claude Code session "
                             "log (not telemetry: what ctxlab calibrate and replay read)")
    parser.add_argument("--json", action="store_true", help="print the run summary as JSON")
    add_rot_option(parser)
    parser.set_defaults(run=run)


def _stage(args: argparse.Namespace) -> int | None:
    if args.layer is not None and (args.keep_everything or args.stage is not None):
        raise UserError("--layer runs your own layer: leave out --stage and --keep-everything")
    if args.keep_everything or args.layer is not None:
        return None
    built = [s.number for s in STAGES if (impl_root("solutions") / s.package).exists()]
    stage = args.stage or max(built)
    if stage not in built:
        raise UserError(f"stage {stage} is not built yet; built stages: "
                        f"{', '.join(map(str, built))}")
    return stage


def _check_workspace(args: argparse.Namespace, stage: int | None) -> None:
    if args.allow_any_command and not args.live:
        raise UserError("--allow-any-command only applies to --live runs")
    if args.resume and args.workspace is None:
        raise UserError("--resume needs --workspace: the folder of the run to continue")
    if args.workspace is None:
        return
    if args.resume:
        header = {"stage": args.layer or stage, "scenario": args.scenario,
                  "model": args.model or load(args.scenario).model}
        try:
            resumable(args.workspace, header)
        except JournalError as error:
            raise UserError(str(error)) from None
    elif args.workspace.exists() and (not args.workspace.is_dir()
                                      or any(args.workspace.iterdir())):
        raise UserError(f"{args.workspace} is not an empty folder; pass a new one, or "
                        "--resume to continue the run in it")


def _check_export(path: Path | None) -> None:
    """A session log is one run: refuse a file that exists (or a link) instead of mixing."""
    if path is not None and (path.is_symlink() or path.exists()):
        raise UserError(f"{path} already exists; --export-log writes a new file")


def run(args: argparse.Namespace) -> int:
    stage = _stage(args)
    try:
        load(args.scenario)
    except ScenarioError as error:
        raise UserError(str(error)) from None
    if args.model is not None and models.lookup(args.model) is None:
        raise UserError(f"unknown model {args.model!r}; see `ctxlab models`")
    _check_workspace(args, stage)
    _check_export(args.export_log)
    use(args.impl, stage if args.impl == "stages" else None, args.chain)
    options = dict(args.options)
    delegate = delegation(args, options)
    if args.layer is not None:
        build_custom(args.layer, options)
    elif options:
        if stage is None:
            raise UserError("--set needs a stage: --keep-everything has no context layer")
        check_layer_options(stage, options)
    console = Console(stderr=args.json)
    title = f"{args.layer or f'stage {stage or KEEP}'} · {args.scenario}"
    with SessionLog(args.log) if args.log else nullcontext() as log:
        try:
            with Dashboard(title=title, console=console, keep=not args.json) as board:
                def on_record(record: TurnRecord) -> None:
                    board.update(record)
                    if log is not None:
                        log.turn(record)
                def confirm(argv: list[str]) -> bool:
                    console.print(f"[yellow]--allow-any-command:[/] running "
                                  f"{escape(shlex.join(argv))}", highlight=False)
                    return True
                result = runner.run(stage, args.scenario, model=args.model, seed=args.seed,
                                    layer_options=options or None, layer=args.layer,
                                    delegation=delegate,
                                    max_turns=args.max_turns, live=args.live,
                                    on_record=on_record, workspace=args.workspace,
                                    resume=args.resume, export_log=args.export_log,
                                    confirm_command=confirm if args.allow_any_command else None)
        except (RuntimeError, JournalError, UnsafePathError) as error:
            if blame(error) is not None:  # the learner's code: the CLI names the exercise
                raise
            raise UserError(str(error)) from None
        if log is not None:
            log.summary(result.summary)
    summary = result.summary
    if args.json:
        print_json(summary.to_dict())
        return 0
    if summary.error:
        console.print(explain_error(summary.error["type"], summary.error["message"]))
    console.print(summary_view(console, summary))
    if summary.size_error is not None:  # a layer that sizes its requests (§9.5)
        console.print(f"count_tokens: {summary.count_calls} calls in {summary.turns} requests "
                      f"({summary.count_calls / max(summary.turns, 1):.2f} per request); the "
                      f"layer's own size within {summary.size_error:.1%} of the input "
                      "reported", highlight=False)
    if summary.subagents:  # §11
        console.print("the totals include the sub-agents:", highlight=False)
    for child in summary.subagents:
        console.print(f"+ sub-agent {escape(str(child['description']))}: {child['turns']} "
                      f"turns, {child['tokens_per_task']:,} tokens, ${child['cost_usd']:.4f}, "
                      f"peak {child['peak_occupancy']:.1%}", highlight=False)
    verdict = "[green]task done[/]" if summary.success else "[red]task not done[/]"
    console.print(verdict + (f": {'; '.join(result.problems)}" if result.problems else ""))
    return 0
