"""search_docs: the MCP-like tool the stages do not know by name (DESIGN §2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlab.tools import ToolBox
from ctxlab.tools.search import MAX_MATCHES


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    root = tmp_path / "ws"
    (root / "docs" / "api").mkdir(parents=True)
    (root / "docs" / "cache.md").write_text("# Cache notes\nThe cache TTL is 5 minutes.\nok\n")
    (root / "docs" / "api" / "limits.md").write_text("Rate limits\nA Cache write costs more.\n")
    (root / "docs" / "logo.png").write_bytes(b"\x89PNG\x00cache\x00")
    (root / "src.py").write_text("# cache outside docs/ is not searched\n")
    outside = tmp_path / "outside.md"
    outside.write_text("cache secret outside\n")
    (root / "docs" / "leak.md").symlink_to(outside)
    return ToolBox(root)


def test_finds_lines_case_insensitively_with_locations(box: ToolBox) -> None:
    out = box.run("search_docs", {"query": "CACHE"})
    assert not out.is_error
    assert out.content.splitlines() == [
        "docs/cache.md:1: # Cache notes",
        "docs/cache.md:2: The cache TTL is 5 minutes.",
        "docs/api/limits.md:2: A Cache write costs more.",
    ]


def test_no_matches(box: ToolBox) -> None:
    out = box.run("search_docs", {"query": "kubernetes"})
    assert not out.is_error and out.content.startswith("no matches")


def test_workspace_without_docs(tmp_path: Path) -> None:
    out = ToolBox(tmp_path).run("search_docs", {"query": "cache"})
    assert out.content.startswith("no matches")


def test_matches_are_capped(box: ToolBox) -> None:
    (box.root / "docs" / "many.md").write_text("needle\n" * (MAX_MATCHES + 7))
    lines = box.run("search_docs", {"query": "needle"}).content.splitlines()
    assert len(lines) == MAX_MATCHES + 1
    assert lines[-1] == "[7 more matches not shown]"


def test_symlinked_docs_folder_pointing_out_is_not_searched(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.md").write_text("cache secret\n")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "docs").symlink_to(elsewhere)
    assert ToolBox(root).run("search_docs", {"query": "cache"}).content.startswith("no matches")


def test_empty_query_is_an_error(box: ToolBox) -> None:
    assert box.run("search_docs", {"query": "  "}).is_error
