"""One ``ctxlab`` command run once per terminal, the CLI imported once (``test_view_pty.py``).

``python terminals.py REPORT TERMINAL... -- ARGV...``: started with its standard streams on a
terminal (a pty), as ``ctxlab`` would be, this process imports the CLI and the command's
modules (two thirds of a run's CPU), then forks one process per ``TERMINAL`` descriptor. Each
puts that terminal on its standard streams, as a process started on it gets them, and runs
``ctxlab ARGV`` to its normal exit (``sys.exit``: its atexit handlers run, its output is
flushed). They run one after the other; their exit codes go to the descriptor ``REPORT`` as
a JSON list, in the order of the terminals.
"""

from __future__ import annotations

import json
import os
import sys

from ctxlab import cli


def main(report: int, terminals: list[int], argv: list[str]) -> None:
    cli.build_parser().parse_args(argv)  # imports the command's module, as `ctxlab` does
    null = os.open(os.devnull, os.O_RDWR)
    for std in (0, 1, 2):  # ours: each terminal ends when its own command has ended
        os.dup2(null, std)
    os.close(null)
    codes = []
    for at, terminal in enumerate(terminals):
        pid = os.fork()
        if pid == 0:
            for std in (0, 1, 2):
                os.dup2(terminal, std)
            for fd in (report, *terminals[at:]):  # the others are closed already
                os.close(fd)
            sys.argv = ["ctxlab", *argv]
            sys.exit(cli.main())  # leaves this loop: the process ends as `ctxlab` ends
        os.close(terminal)
        codes.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    os.write(report, json.dumps(codes).encode())


if __name__ == "__main__":
    split = sys.argv.index("--")
    report, *terminals = (int(fd) for fd in sys.argv[1:split])
    main(report, terminals, sys.argv[split + 1:])
