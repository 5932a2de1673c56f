"""``ctxlab run`` in a real terminal of each common width: every line it draws fits, nothing
is cropped on the right, and the events column is there once the terminal is wide enough
(DESIGN §6). The run sees a pseudo-terminal of that size (``pty`` + ``TIOCSWINSZ``), as a
learner's terminal window would be: the live dashboard's redraws and the final tables are
read back as the terminal received them."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from collections.abc import Sequence
from pathlib import Path

import pytest
from rich.cells import cell_len

CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-B]")
LEFT, RIGHT = "┏┃┡│└┌├╭", "┓┃┩│┘┐┤╮"  # a bordered table's line starts and ends with these
WIDTHS = (80, 91, 100, 110, 120)
HEIGHT = 40


DRIVER = Path(__file__).with_name("terminals.py")


def in_terminals(argv: list[str], widths: Sequence[int]) -> list[tuple[int, list[str], str]]:
    """Run ``ctxlab argv`` in a pseudo-terminal of each width (``terminals.py``: one process
    per terminal, forked after the CLI's imports); for each, its exit code, the lines the
    terminal got (control sequences removed, split where the cursor went back to a line's
    start) and the end of what it got."""
    mains, children = [], []
    for width in widths:
        main, child = pty.openpty()
        fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", HEIGHT, width, 0, 0))
        mains.append(main)
        children.append(child)
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLUMNS", "LINES", "TTY_COMPATIBLE", "FORCE_COLOR", "NO_COLOR")}
    env["TERM"] = "xterm-256color"
    report, reported = os.pipe()
    process = subprocess.Popen(
        [sys.executable, str(DRIVER), str(reported), *map(str, children), "--", *argv],
        stdin=children[0], stdout=children[0], stderr=children[0], env=env,
        pass_fds=[reported, *children])
    for fd in (reported, *children):
        os.close(fd)
    screens = []
    for main in mains:  # the commands run one after the other, in this order
        received = bytearray()
        while True:
            try:
                chunk = os.read(main, 1 << 16)
            except OSError:  # EIO: the terminal's side is closed
                break
            if not chunk:
                break
            received += chunk
        os.close(main)
        text = CONTROL.sub("", received.decode(errors="replace"))
        screens.append(([line for line in re.split(r"[\r\n]", text) if line.strip()],
                        received.decode(errors="replace")[-2000:]))
    with os.fdopen(report, "rb") as answer:
        codes = json.loads(answer.read() or "[]")
    assert process.wait(timeout=120) == 0 and len(codes) == len(widths), screens[-1][1]
    return [(code, lines, tail) for code, (lines, tail) in zip(codes, screens, strict=True)]


@pytest.fixture(scope="module")
def screens() -> dict[int, tuple[int, list[str], str]]:
    """``ctxlab run --stage 5`` once in a terminal of each width (the same run: computing it
    is a third of a run's CPU, drawing it is what differs)."""
    argv = ["run", "--stage", "5", "--scenario", "long-task"]
    return dict(zip(WIDTHS, in_terminals(argv, WIDTHS), strict=True))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_stage_5_run_fits_a_terminal_of_each_width(
        screens: dict[int, tuple[int, list[str], str]], width: int) -> None:
    code, lines, tail = screens[width]
    assert code == 0, tail
    assert any("task done" in line for line in lines), lines[-5:]
    too_wide = [line for line in lines if cell_len(line) > width]
    assert not too_wide, too_wide[0]
    framed = [line.rstrip() for line in lines if line.lstrip()[:1] in LEFT]
    cropped = [line for line in framed if line[-1] not in RIGHT]
    assert not cropped, f"cut at the right edge:\n{cropped[0]}"
    rows = [line for line in lines if re.match(r"\s*\d+\s+\d+\s.*\$\d+\.\d{4}", line)]
    assert rows, "no call drawn in the compact layout's rows"  # (bordered rows: `framed`)
    cut = [line for line in rows if not re.search(r"\$\d+\.\d{4}\s+\d+\.\d%", line)]
    assert not cut, f"a row cut before its occupancy:\n{cut[0]}"
    headers = [line for line in lines if "msgs" in line]  # the per-call table's header row
    assert headers
    if width >= 91:  # the compact layout has room for its events column, every time
        assert all("events" in header for header in headers), headers
