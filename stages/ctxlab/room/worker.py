"""One grading run (``python -m ctxlab.room.worker FD COPY PRELOAD PYTEST-ARGS…``).

``ctxlab room`` starts it in the jail, in an environment it made (``ctxlab.room.run``): the
instructor's tests, reference and lab bench in a read-only copy (``CTXLAB_ROOT``), the
participant's stage package in ``COPY`` (``CTXLAB_STAGES_ROOT``), temporary files inside it.
Everything the grader learns of the run comes through descriptor ``FD``, a pipe: the workbook
plugin's per-test lines (``--ctxlab-log-fd``), writes outside the copy (``guard``) and the
``sentinel``'s findings. The descriptor is not inherited by the processes the tests start.
The libraries named in the file ``PRELOAD`` (those the grader's own collection loaded) are
imported before the sentinel's first look, none of the participant's code among them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    fd, copy = int(argv[0]), Path(argv[1]).resolve()
    os.set_inheritable(fd, False)
    from ctxlab.workbook.pytest_plugin import write_line

    def report(line: dict[str, Any]) -> None:
        write_line(fd, line)

    from . import guard, reach
    from .sentinel import watched

    guard.install(copy, report)
    reach.install(report, watched)
    import contextlib
    import importlib

    import pytest

    for name in Path(argv[2]).read_text(encoding="utf-8").split():
        with contextlib.suppress(Exception):  # one the run does not need: pytest says if
            importlib.import_module(name)  # it does

    from .sentinel import Sentinel

    sentinel = Sentinel(Path(os.environ["CTXLAB_ROOT"]), copy, report)
    return int(pytest.main(argv[3:], plugins=[sentinel]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
