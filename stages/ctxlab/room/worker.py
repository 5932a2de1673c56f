"""One grading run inside a participant's copy (run as ``python -m ctxlab.room.worker``).

``ctxlab room`` starts it under the tool sandbox's reaper (scrubbed environment, HOME in the
copy, every process killed at the time limit). It points the workbook at the copy — the
instructor's tests and reference copied in, the participant's stage package in
``stages/`` — keeps temporary files inside it, watches writes outside it (``guard``), loads the
``sentinel`` before any of the participant's code, and runs pytest with the arguments given.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    copy = Path(argv[0]).resolve()
    os.environ.update(CTXLAB_ROOT=str(copy), CTXLAB_STAGES_ROOT=str(copy / "stages"),
                      TMPDIR=str(copy / "tmp"), MPLCONFIGDIR=str(copy / "tmp" / "mpl"),
                      MPLBACKEND="Agg", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")  # the workbook's
    # plugin comes from pyproject.toml; third-party ones only cost start-up time
    from .guard import install

    install(copy, copy / ".room" / "outside.jsonl")
    import pytest

    import ctxlab.workbook.pytest_plugin  # noqa: F401  (watched from the start)

    from .sentinel import Sentinel

    sentinel = Sentinel(copy, copy / ".room" / "log.jsonl")
    return int(pytest.main(argv[1:], plugins=[sentinel]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
