"""Stress of the fork server's stop path (``ctxlab.tools.reaper``): commands whose client
closes the line at once, over and over. Before the reaper took its stop signals with
``sigwait``, about one in 2,000 ran on until it ended by itself (a SIGTERM that came just
before the reaper's blocking wait was left to a Python handler that could not run)."""

from __future__ import annotations

import os
from pathlib import Path

from ctxlab.tools import forkserver, reaper

ROUNDS = 2_000


def test_every_command_whose_client_gave_up_is_stopped_at_once(tmp_path: Path) -> None:
    left_running = []
    for round_ in range(ROUNDS):
        read, write = os.pipe()
        running = forkserver.start(["sleep", "5"], tmp_path, {"PATH": "/bin:/usr/bin"}, write)
        os.close(write)
        running.close()
        if not reaper.readable([read], 4):  # its output ends when it is killed (poll: a long
            # session's worker holds descriptors numbered past what select takes)
            left_running.append(round_)
        os.close(read)
    assert left_running == [], f"{len(left_running)} of {ROUNDS} commands outlived their client"
