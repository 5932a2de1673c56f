"""``ctxlab room PATH...``: grade a room of workbooks with the instructor's tests (workshops)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import as_completed
from pathlib import Path

from rich.console import Console

from .. import jail
from ..room import board
from ..room.room import grade_room
from ..room.submissions import SubmissionError
from ..view.progress import progress
from ..workbook.layout import handed_out, repo_root
from .common import UserError, positive_int, print_json
from .workbook_cmd import stage_list


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "room",
        description="Grade each PATH — a checkout, a folder of checkouts, or an archive of "
                    "stages/ (.zip, .tar.gz …) — with this checkout's tests, reference and "
                    "grading table, each submission's stage in a jail of its own (bubblewrap: "
                    "it sees a read-only copy of your tests and its own files, nothing else), "
                    "in parallel. Edited tests are ignored and reported; a run that hangs past "
                    "--timeout or crashes costs only its own exercises; a stage whose result "
                    "was faked from inside scores 0 (tampered); an archive that cannot be "
                    "unpacked, or a package holding a link or a special file, is one rejected "
                    "row, and the rest of the room is still graded.")
    parser.add_argument("paths", type=Path, nargs="+", metavar="PATH")
    parser.add_argument("--stages", type=stage_list, default=None, metavar="N,M",
                        help="the stages to grade (default: the stages this checkout hands out)")
    parser.add_argument("--timeout", type=positive_int, default=300, metavar="SECONDS",
                        help="time limit of one stage's run (default 300)")
    parser.add_argument("--jobs", type=positive_int, default=None,
                        help="runs at the same time (default: one per core)")
    parser.add_argument("-k", "--select", default=None, metavar="EXPR",
                        help="only the tests pytest's -k EXPR selects (a quick check)")
    parser.add_argument("--no-jail", action="store_true",
                        help="grade without the jail where there is none (macOS, no user "
                             "namespaces): participants' code can then reach each other's "
                             "files and yours; the report says so")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the results as JSON")
    out.add_argument("--csv", action="store_true", help="print the scoreboard as CSV")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    stages = [s for s in (args.stages or handed_out())
              if (repo_root() / "tests" / f"s{s.number}").is_dir()]
    if not stages:
        raise UserError("no stage to grade: this checkout has no tests/sN for the stages given")
    jailed = not args.no_jail
    if jailed and not (status := jail.probe()).ok:
        raise UserError(f"no jail for participants' code here ({status.reason}); "
                        "--no-jail grades without one")
    errors = Console(stderr=True)
    if not jailed:
        errors.print(board.UNJAILED, highlight=False)

    def track(futures: list) -> None:
        for _ in progress(as_completed(futures), "grading", total=len(futures), console=errors):
            pass

    with tempfile.TemporaryDirectory(prefix="ctxlab-room-") as work:
        try:
            room = grade_room(args.paths, stages, Path(work), timeout=args.timeout,
                              jailed=jailed, jobs=args.jobs, select=args.select, track=track)
        except SubmissionError as error:
            raise UserError(str(error)) from None
    numbers = [s.number for s in stages]
    if not room:
        raise UserError("no submission found in the paths given")
    if args.json:
        print_json(board.to_json(room, numbers, jailed=jailed))
    elif args.csv:
        sys.stdout.write(board.to_csv(room, numbers))
    else:
        board.show(Console(), room, numbers, jailed=jailed)
    return 0
