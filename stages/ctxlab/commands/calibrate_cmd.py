"""``ctxlab calibrate``: how an agent behaves, measured from its session logs (DESIGN §4, §6).

Real Claude Code logs and simulated runs exported with ``ctxlab run --export-log`` are read
by the same importer and measured by the same rules (``ctxlab.calibrate``), so the simulated
agent's realism is a figure, not a claim.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..calibrate import realism
from ..calibrate.estimate import HABITS
from ..calibrate.report import KEYS, ROLES, Calibration, calibrate
from ..calibrate.sources import MIN_SESSIONS, verdict
from ..replay.discover import DiscoveryError
from .common import UserError, add_rot_option, print_json

_LABELS = {
    "sessions": "sessions (logs grouped by sessionId)",
    "parents": "parents (main threads read)",
    "sidechains": "sidechains (sub-agent logs read)",
    "responses": "responses measured",
    "output_tokens_median": "output tokens per response, median",
    "output_tokens_p90": "output tokens per response, p90",
    "parallel_mean": "tool calls per calling response",
    "note_rate": "note rate (result item restated)",
    "reread_rate": "re-read rate (no write between)",
    "reread_in_view_rate": "  of which the earlier read in view",
    "reread_after_compaction_rate": "  of which after a compaction",
}


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("calibrate",
                            description="Measure how an agent behaves in Claude Code session "
                                        "logs (real ones, or runs written with ctxlab run "
                                        "--export-log): output tokens per response, parallel "
                                        "tool calls, working notes, re-reads. Logs are grouped "
                                        "by session; main threads (parents) and sub-agents "
                                        "(sidechains) are also shown apart, and compaction "
                                        "or warmup calls are no agent turn.")
    parser.add_argument("paths", type=Path, nargs="+", metavar="PATH",
                        help="session logs, or folders searched recursively for *.jsonl logs")
    parser.add_argument("--json", action="store_true",
                        help="print the statistics as JSON, with per-file figures in 'files'")
    parser.add_argument("--simulated", action="store_true",
                        help="also run and measure the simulated agent's pooled baseline "
                             f"({len(realism.SCENARIOS)} scenarios × seeds "
                             f"{realism.SEEDS[0]}–{realism.SEEDS[-1]}, keep-everything on "
                             f"{realism.MODEL}; --rot on|off) and show every habit "
                             "beside the logs' with its interval and a verdict (within "
                             "±30 %% or not)")
    parser.add_argument("--markdown", action="store_true",
                        help="with --simulated: print the README's table")
    add_rot_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        result = calibrate(args.paths)
    except DiscoveryError as error:
        raise UserError(str(error)) from None
    if args.simulated or args.markdown:
        return _simulated(args, result)
    if args.json:
        print_json(result.to_dict())
        return 0 if result.stats["sessions"] else 2
    console = Console()
    table = Table(title="Behaviour of the agent in these logs", title_justify="left")
    table.add_column("statistic")
    for column in ("pooled", *ROLES):
        table.add_column(column, justify="right")
    for key in KEYS:
        table.add_row(_LABELS[key], realism.shown(result.stats[key]),
                      *(realism.shown(result.by_role[r][key]) if key in result.by_role[r] else ""
                        for r in ROLES))
    console.print(table)
    for note in result.notes:
        console.print(f"[dim]note:[/] {escape(note)}", highlight=False, soft_wrap=False)
    console.print("[dim]A note restates a result's distinctive item (a quantity with its unit, "
                  "a file name, an error name) before the next tool call: see "
                  "ctxlab.calibrate.items.[/]", highlight=False)
    _per_session(console, result)
    return 0 if result.stats["sessions"] else 2


def _per_session(console: Console, result: Calibration) -> None:
    """Every habit per session with its interval, then left out one source at a time."""
    table = Table(title="Per session (each weighs by its count, capped at the median "
                        "session's)", title_justify="left")
    for column in ("habit", "estimate", "95 % interval", "sessions"):
        table.add_column(column, justify="left" if column == "habit" else "right")
    for habit in HABITS:
        got = result.per_session[habit.key]
        table.add_row(habit.label, realism.shown(got.value),
                      "" if got.value is None else
                      f"{realism.shown(got.low)}–{realism.shown(got.high)}", str(got.sessions))
    console.print(table)
    console.print("Left out one source at a time: (others − source) / source; ? marks a "
                  f"source with fewer than {MIN_SESSIONS} sessions measuring the habit or an "
                  "interval wider than ±30 %, which cannot settle it.", highlight=False)
    for habit in HABITS:
        errors = ", ".join(f"{r.source} " + ("—" if r.error is None else f"{r.error:+.0%}")
                           + ("" if r.settled else "?") for r in result.sources[habit.key])
        console.print(f"  {habit.key}: {errors or 'no source'}\n"
                      f"    {verdict(result.sources[habit.key])}", highlight=False)


def _simulated(args: argparse.Namespace, real: Calibration) -> int:
    """The pooled simulated runs measured beside ``real``, every habit with its verdict
    (README "How real is the simulated agent")."""
    if not args.simulated:
        raise UserError("--markdown prints the side-by-side table: add --simulated")
    console = Console(stderr=True)
    with tempfile.TemporaryDirectory() as folder, console.status("simulated runs") as status:
        realism.export(Path(folder), progress=lambda done: status.update(f"running {done}"))
        simulated = calibrate([Path(folder)])
    if args.json:
        print_json({"real": {k: real.stats[k] for k in KEYS},
                    "simulated": {k: simulated.stats[k] for k in KEYS},
                    "band": realism.BAND, "habits": realism.side_by_side(real, simulated)})
    else:
        print(realism.markdown(real, simulated))
    return 0
