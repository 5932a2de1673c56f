"""What the OS jail costs per command (docs/reliability.md §5, docs/bench.md).

    .venv/bin/python tests/reliability/jail_cost.py [N]

Runs N commands (default 200) through ``run_command`` with the jail and behind the option guard
alone, each batch in a fresh process so that its CPU time (the fork server's and the commands'
included: the process waits for its server at exit) is read from ``getrusage`` once it has
ended; prints the wall and CPU time per command and the differences. Rounds alternate, so a
change in the machine's load falls on both.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

COMMANDS = ("cat check.py", "python3 check.py")


def batch(mode: str, command: str, count: int) -> None:
    """In the child: ``count`` runs of ``command``, jailed or not."""
    from ctxlab.tools import ToolBox, confine

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "check.py").write_text("print('ok')\n")
        box = ToolBox(Path(folder))
        with mock.patch.object(confine, "jailed", return_value=mode == "jail"):
            for _ in range(count):
                assert box.run("run_command", {"command": command}).content.endswith("0]")


def measure(mode: str, command: str, count: int) -> tuple[float, float]:
    """(wall ms, CPU ms) per command of one batch in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--batch", mode, command, str(count)], check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall / count * 1000, cpu / count * 1000


def main(count: int) -> None:
    from ctxlab import jail

    status = jail.probe()
    if not status.ok:
        sys.exit(f"jail_cost.py: no jail here ({status.reason})")
    print(f"{count} commands per batch, two rounds; ms per command (wall / CPU)")
    for command in COMMANDS:
        figures: dict[str, list[tuple[float, float]]] = {"guard": [], "jail": []}
        for _ in range(2):
            for mode in figures:
                figures[mode].append(measure(mode, command, count))
        wall = {m: min(w for w, _ in f) for m, f in figures.items()}
        cpu = {m: min(c for _, c in f) for m, f in figures.items()}
        print(f"{command:18} guard alone {wall['guard']:5.1f} / {cpu['guard']:4.1f}   "
              f"jail {wall['jail']:5.1f} / {cpu['jail']:4.1f}   "
              f"cost {wall['jail'] - wall['guard']:+5.1f} / {cpu['jail'] - cpu['guard']:+4.1f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--batch"]:
        batch(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
