"""Regenerate the escape table of docs/reliability.md §5 from a run of ``test_escapes.py``.

    .venv/bin/python tests/reliability/escape_table.py

Each attempt counts as contained only if its test passed in this run, which must have the OS
jail (``ctxlab.jail``): the table states what the jail contains. The table and its count line
are written between the ``escapes`` markers.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


class Outcomes:
    """Which attempts' tests passed."""

    def __init__(self) -> None:
        self.passed: dict[str, bool] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or not report.passed:
            ident = report.nodeid.partition("[")[2].rstrip("]")
            self.passed[ident] = report.passed and self.passed.get(ident, True)


def main() -> int:
    from ctxlab import jail

    status = jail.probe()
    if not status.ok:
        print(f"escape_table.py: no jail here ({status.reason}); the table is written from a "
              "run in the jail", file=sys.stderr)
        return 2
    outcomes = Outcomes()
    code = pytest.main([f"{HERE / 'test_escapes.py'}::test_the_attempt_is_contained", "-q"],
                       plugins=[outcomes])
    if code not in (0, 1):
        return int(code)
    escapes = next(m for n, m in sys.modules.items() if n.endswith("test_escapes"))
    docs = escapes.DOCS
    text = docs.read_text(encoding="utf-8")
    head, rest = text.split(escapes.ESCAPES_MARK, 1)
    tail = rest.split(escapes.ESCAPES_END, 1)[1]
    body = "\n".join(escapes.table(outcomes.passed))
    docs.write_text(f"{head}{escapes.ESCAPES_MARK}\n{body}\n{escapes.ESCAPES_END}{tail}",
                    encoding="utf-8")
    print(body.splitlines()[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
