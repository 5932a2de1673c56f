"""The graded tests as the reference collects them (``python -m ctxlab.room.collect OUT ...``).

Run by ``ctxlab.room.verdict.expected`` in the instructor's checkout with ``--impl solutions``:
writes nodeid → ``run``, ``xfail`` or ``skip`` (the marks the workbook's plugin gives) to OUT.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest


class Collector:
    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            self.kinds[item.nodeid] = ("skip" if item.get_closest_marker("skip") else
                                       "xfail" if item.get_closest_marker("xfail") else "run")


def main(argv: list[str]) -> int:
    collector = Collector()
    code = int(pytest.main(argv[1:], plugins=[collector]))
    if code == 0:
        Path(argv[0]).write_text(json.dumps(collector.kinds), encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
