"""``ctxlab bench``: the context layer's per-turn cost against a full tokenization (issue 9)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from ..bench import REQUESTS, SIZES, STAGES, TURNS, run_bench, show
from ..bench.turns import MODEL
from ..replay.discover import DiscoveryError, find_logs
from ..scenarios import ScenarioError, load
from .common import UserError, add_rot_option, positive_int, print_json

SUFFIXES = {"k": 1_000, "m": 1_000_000}
MIN_SIZE = 5_000


def _sizes(text: str) -> list[int]:
    """``10K,50K,200K,1M`` → token counts."""
    sizes = []
    for part in text.split(","):
        part = part.strip().lower().replace("_", "")
        scale = SUFFIXES.get(part[-1:], 1)
        try:
            value = int(float(part[:-1] if scale > 1 else part) * scale)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a token count: {part!r}") from None
        if value < MIN_SIZE:
            raise argparse.ArgumentTypeError(
                f"{value:,} tokens is too small: use {MIN_SIZE:,} or more (the tools, the "
                "system prompt and one measured round must fit)")
        sizes.append(value)
    return sizes


def _stages(text: str) -> list[int]:
    """``1-5``, ``2,5`` or ``none`` → stage numbers."""
    if text.strip().lower() == "none":
        return []
    stages: list[int] = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        try:
            stages += range(int(first), int(last or first) + 1)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a stage list: {text!r}") from None
    if not all(1 <= s <= 5 for s in stages):
        raise argparse.ArgumentTypeError("stages are 1 to 5")
    return stages


def _replays(text: str) -> list[int]:
    """``250,500,1000,2000`` or ``none`` → session lengths in requests."""
    if text.strip().lower() == "none":
        return []
    try:
        lengths = [int(part.strip().replace("_", "")) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of request counts: {text!r}") from None
    if not all(n >= 2 for n in lengths) or len(set(lengths)) < 2:
        raise argparse.ArgumentTypeError("give two or more distinct lengths of 2 requests or "
                                         "more (the growth is fitted across them), or none")
    return lengths


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "bench",
        description="Per-turn cost of stage 5's context layer at several context sizes, next "
                    "to one full tokenization of the same context and the simulator's time per "
                    "request; then one whole run per stage and the peak memory. Exit status 1 "
                    "when a target is missed.")
    parser.add_argument("--sizes", type=_sizes, default=list(SIZES),
                        help="context sizes in tokens (default 10K,50K,200K,1M)")
    parser.add_argument("--turns", type=positive_int, default=TURNS,
                        help=f"measured turns per size; the median is reported (default {TURNS})")
    parser.add_argument("--stages", type=_stages, default=list(STAGES),
                        help="stages for the whole runs: 1-5, 2,5 or none (default 1-5)")
    parser.add_argument("--scenario", default="long-task",
                        help="scenario of the whole runs (default long-task)")
    parser.add_argument("--replays", type=_replays, default=list(REQUESTS),
                        help="lengths in requests of the synthetic sessions replayed, or none "
                             f"(default {','.join(map(str, REQUESTS))})")
    parser.add_argument("--logs", type=Path, nargs="+", default=[], metavar="PATH",
                        help="session logs (files or folders) to replay at stages 1 and 5: "
                             "stage 5's CPU per request against stage 1's")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_rot_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        find_logs(args.logs)
    except DiscoveryError as error:
        raise UserError(str(error)) from None
    if args.stages:
        try:
            load(args.scenario)
        except ScenarioError as error:
            raise UserError(str(error)) from None
    status = Console(stderr=True)
    with status.status(f"benchmarking ({MODEL}) …") as spinner:
        report = run_bench(args.sizes, stages=args.stages, scenario=args.scenario,
                           turns=max(1, args.turns), seed=args.seed,
                           replay_requests=args.replays, logs=args.logs,
                           progress=spinner.update)
    if args.json:
        print_json(report)
    else:
        show(report)
    return 0 if report["ok"] else 1
