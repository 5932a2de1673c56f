"""``make test`` leaves out only what carries the ``reliability`` mark: a module its recipe
does not even import (``OUTSIDE_TEST`` in the Makefile) is marked whole, so no test is lost."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ctxlab.workbook.layout import repo_root

ROOT = repo_root()


def outside_test() -> list[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^OUTSIDE_TEST := (.+)$", makefile, flags=re.M)
    assert found, "the Makefile no longer names what make test leaves out (OUTSIDE_TEST)"
    assert "$(OUTSIDE_TEST:%=--ignore=%)" in makefile.split("\ntest:", 1)[1].split("\n\n")[0]
    return found.group(1).split()


def marked_reliability_whole(path: Path) -> bool:
    """``pytestmark = pytest.mark.reliability`` at the top level of the module."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            return ast.unparse(node.value) == "pytest.mark.reliability"
    return False


def test_what_make_test_does_not_import_is_reliability_whole() -> None:
    paths = outside_test()
    assert paths[0] == "tests/reliability"  # marked whole by tests/conftest.py
    for name in paths[1:]:
        path = ROOT / name
        assert path.is_file() and path.name.startswith("test_"), name
        assert marked_reliability_whole(path), f"{name} is left out of make test unmarked"
