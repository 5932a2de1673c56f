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
    """A projects folder as Claude Code lays it out, every log a copy of one fixture: each
    session its own id, each ``subagents/`` log a sidechain of its session."""
    lines = [json.loads(line) for line in
             (FIXTURES / "resumed.jsonl").read_text().splitlines() if line.strip()]
    for name in TREE:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        session = name.split("/")[1].removesuffix(".jsonl")
        agent = path.stem.removeprefix("agent-") if "subagents" in name else None
        copied = [line | {"sessionId": session, "isSidechain": bool(agent)}
                  | ({"agentId": agent} if agent else {}) for line in lines]
        path.write_text("".join(json.dumps(line) + "\n" for line in copied))
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
    assert report["failed"] == []
    assert [(r["file"], [s["files"] for s in r["sidechains"]]) for r in report["replays"]] == [
        (TREE[4], []), (TREE[0], [[TREE[1]], [TREE[2]]]), (TREE[3], [])]


def test_the_folder_table_names_files_from_the_folder_and_totals_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    root = _projects(tmp_path / "projects")
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["replay", str(root), "--stage", "2"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "-home-m…-shop/0b1e.jsonl" in out  # the start and the end of a long name
    assert "└ task a1" in out and "└ task a2" in out  # the sidechains under their parent
    assert f"3 sessions, {len(TREE)} threads" in out  # the totals line


def test_a_log_that_ends_with_a_manual_compact_says_why_it_has_no_request(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = (FIXTURES / "compacted.jsonl").read_text().splitlines()
    boundary = next(i for i, line in enumerate(lines) if "compact_boundary" in line)
    ending = [json.loads(line) for line in lines[:boundary + 2]]
    ending[boundary]["compactMetadata"]["trigger"] = "manual"
    (tmp_path / "ends-with-compact.jsonl").write_text(
        "\n".join(json.dumps(e) for e in ending) + "\n")
    shutil.copy(FIXTURES / "resumed.jsonl", tmp_path / "ok.jsonl")
    assert main(["replay", str(tmp_path), "--stage", "3"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "ends-with-compact.jsonl: 0 requests: the log ends with a manual compaction" in out
    assert "--whole-file replays what came before" in out


@pytest.mark.parametrize(("option", "says"), [
    ("per_result=abc", "--set per_result=\"abc\": expected a whole number"),
    ("keep_last=abc", "--set keep_last=\"abc\": expected a whole number like 47"),
    ("per_result=true", "--set per_result=true: expected a whole number"),
    ("target_share=x", "expected a number like 0.6"),
])
def test_a_set_value_of_the_wrong_type_is_one_line(option: str, says: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(FIXTURES / "dirty.jsonl"), "--stage", "5",
                 "--set", option]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and err.count("\n") == 1
