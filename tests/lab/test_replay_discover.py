"""Finding session logs: a ``~/.claude/projects``-shaped tree is searched all the way down,
subagents included; links to folders are not followed; a folder with no log is one clear line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ctxlab.cli import main
from ctxlab.replay.discover import DiscoveryError, display_name, find_logs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"

TREE = [
    "-home-me-src-shop/0b1e.jsonl",
    "-home-me-src-shop/0b1e/subagents/agent-a1.jsonl",
    "-home-me-src-shop/0b1e/subagents/agent-a2.jsonl",
    "-home-me-src-shop/7c2d.jsonl",
    "-home-me-notes/91aa.jsonl",
]


def _projects(root: Path) -> Path:
    """A projects folder as Claude Code lays it out, every log a copy of one fixture."""
    for name in TREE:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURES / "resumed.jsonl", path)
    (root / "-home-me-notes" / "memory.md").write_text("not a log\n")
    return root


def test_every_log_of_a_projects_tree_is_found(tmp_path: Path) -> None:
    root = _projects(tmp_path / "projects")
    logs = find_logs([root])
    assert sorted(display_name(p, [root]) for p in logs) == sorted(TREE)
    assert [display_name(p, [root]) for p in logs] == sorted(TREE, key=lambda n: n.split("/"))


def test_a_file_named_twice_is_found_once_and_files_keep_their_order(tmp_path: Path) -> None:
    root = _projects(tmp_path / "projects")
    one = root / TREE[3]
    assert find_logs([one, root / "-home-me-notes", one]) == [one, root / TREE[4]]
    assert display_name(one, [one]) == "7c2d.jsonl"


def test_a_link_to_a_folder_is_not_followed(tmp_path: Path) -> None:
    root = _projects(tmp_path / "projects")
    outside = _projects(tmp_path / "elsewhere")
    (root / "link").symlink_to(outside, target_is_directory=True)
    assert len(find_logs([root])) == len(TREE)


@pytest.mark.parametrize("make", ["missing", "empty"])
def test_a_path_with_no_log_is_one_clear_error(tmp_path: Path, make: str) -> None:
    path = tmp_path / "x"
    if make == "empty":
        (path / "deep" / "er").mkdir(parents=True)
    with pytest.raises(DiscoveryError, match="does not exist" if make == "missing"
                       else "holds no"):
        find_logs([path])


def test_replay_of_a_projects_tree_replays_every_log(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    root = _projects(tmp_path / "projects")
    assert main(["replay", str(root), "--stage", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["replays"]) == len(TREE) and report["failed"] == []
