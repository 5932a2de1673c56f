"""The graded tests as the reference collects them (``python -m ctxlab.room.collect OUT ...``).

Run by ``ctxlab.room.verdict.expected`` in the instructor's checkout with ``--impl solutions``:
writes to OUT each test's nodeid → ``{"kind": run | xfail | skip, "code": …}`` (the marks the
workbook's plugin gives, and the print of the test's code, ``testcode``, a run must call) and
the library modules the collection loaded (``modules``: neither a test, nor a stage package,
nor the reference), which a run loads before its sentinel looks, so that what a library
changes in another at import (``typing_extensions`` patches ``typing``) is not taken for the
participant's doing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ..workbook.layout import BY_PACKAGE, repo_root
from .testcode import code_print


class Collector:
    def __init__(self) -> None:
        self.kinds: dict[str, dict[str, str]] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            kind = ("skip" if item.get_closest_marker("skip") else
                    "xfail" if item.get_closest_marker("xfail") else "run")
            self.kinds[item.nodeid] = {
                "kind": kind, "code": code_print(getattr(item, "obj", None), [repo_root()])}


def libraries() -> list[str]:
    """The modules loaded now that are neither tests, nor stage packages, nor the reference."""
    root = repo_root()
    ours = (str(root / "tests") + "/", str(root / "solutions") + "/",
            *(str(root / "stages" / p) + "/" for p in BY_PACKAGE))
    return sorted(name for name, module in list(sys.modules.items())
                  if name.split(".")[0] not in (*BY_PACKAGE, "conftest", "__main__")
                  and not str(getattr(module, "__file__", None) or "").startswith(ours)
                  and name != __spec__.name)


def main(argv: list[str]) -> int:
    collector = Collector()
    code = int(pytest.main(argv[1:], plugins=[collector]))
    if code == 0:
        Path(argv[0]).write_text(json.dumps({"tests": collector.kinds,
                                             "modules": libraries()}), encoding="utf-8")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
