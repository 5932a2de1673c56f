"""Session trees (§11): the lines of every log given are grouped by ``sessionId``; a sidechain
goes under the session it names, whatever the argument order or folder layout; each recorded
usage is billed once; a compaction call costs what it recorded (``fixtures/sessions``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxlab import models
from ctxlab.cli import main
from ctxlab.replay.group import group
from ctxlab.replay.lines import read_lines

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sessions"
PROJECT = FIXTURES / "projects" / "-home-me-shop"
PARENT = PROJECT / "7a1c0000-0000-4000-8000-000000000001.jsonl"
AGENTS = PARENT.with_suffix("") / "subagents"
EXPLORE, COMPACTION = AGENTS / "agent-a5e1f00.jsonl", AGENTS / "agent-acompact-5c0f11.jsonl"
ORPHAN = FIXTURES / "flat" / "orphan-agent.jsonl"
RESUMED = FIXTURES / "flat" / "resumed-two-ids.jsonl"


def replay(capsys: pytest.CaptureFixture[str], *paths: Path, stage: str = "2") -> Any:
    assert main(["replay", *map(str, paths), "--stage", stage, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def usage_cost(*paths: Path, session: str | None = None) -> float:
    """What the usage lines of ``paths`` cost, the last line of each ``message.id`` once, each
    at its own model's prices: counted here without the replay's code."""
    last: dict[str, tuple[str, dict[str, Any]]] = {}
    for path in paths:
        for entry in read_lines(path).entries:
            message = entry.data.get("message") or {}
            if entry.type == "assistant" and (session is None
                                              or entry.data["sessionId"] == session):
                last[message["id"]] = (message["model"], message["usage"])
    return sum(models.cost_usd(models.lookup(model), input_tokens=u["input_tokens"],
                               output_tokens=u["output_tokens"],
                               cache_read=u["cache_read_input_tokens"],
                               write_5m=u["cache_creation_input_tokens"])
               for model, u in last.values())


def test_the_subagents_layout_is_one_tree_with_each_kind_from_the_log(
        capsys: pytest.CaptureFixture[str]) -> None:
    report = replay(capsys, FIXTURES / "projects")
    [tree] = report["replays"]
    assert tree["session"] == PARENT.stem and not tree["orphan"]
    kinds = {s["agent_id"]: (s["kind"], s["agent_type"]) for s in tree["sidechains"]}
    assert kinds == {"a5e1f00": ("explore", "Explore"), "acompact-5c0f11": ("compaction", None)}
    members = [tree, *tree["sidechains"]]
    for key in ("recorded_usd", "with_zones_usd", "without_zones_usd", "requests"):
        assert tree["tree"][key] == pytest.approx(sum(m["bill"][key] for m in members))
    assert tree["tree"]["recorded_usd"] == pytest.approx(usage_cost(PARENT, EXPLORE, COMPACTION))


def test_a_compaction_call_costs_what_it_recorded_because_its_prefix_was_cached(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Its log holds the summary prompt only; the 158K-token history it summarized was read
    from the cache. Starting the bill cold wrote all of it: about 8 times the recorded cost."""
    [tree] = replay(capsys, FIXTURES / "projects")["replays"]
    [compaction] = [s for s in tree["sidechains"] if s["kind"] == "compaction"]
    bill = compaction["bill"]
    assert bill["recorded_usd"] == pytest.approx(usage_cost(COMPACTION))
    assert bill["cache_read_tokens"] == 158_000  # what the log recorded as read
    assert bill["with_zones_usd"] == pytest.approx(bill["recorded_usd"], rel=0.01)
    cold = models.cost_usd(models.get(compaction["model"]), input_tokens=0,
                           write_5m=bill["input_tokens"],
                           output_tokens=bill["output_tokens"])
    assert cold > 5 * bill["with_zones_usd"]


def test_a_sidechain_named_before_its_parent_still_goes_under_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    first = replay(capsys, EXPLORE, COMPACTION, PARENT)["replays"]
    second = replay(capsys, PARENT, COMPACTION, EXPLORE)["replays"]
    assert len(first) == len(second) == 1
    assert first[0]["file"] == second[0]["file"] == PARENT.name
    assert [s["file"] for s in first[0]["sidechains"]] == [s["file"] for s in
                                                           second[0]["sidechains"]]
    assert first[0]["tree"] == second[0]["tree"]


def test_a_sidechain_whose_parent_is_absent_is_its_own_entry_and_says_so(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    report = replay(capsys, ORPHAN, EXPLORE)
    assert [(r["file"], r["orphan"], r["kind"]) for r in report["replays"]] == [
        (ORPHAN.name, True, "task"), (EXPLORE.name, True, "task")]  # no call names them
    assert all("none of the files given" in r["orphan_note"] for r in report["replays"])
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["replay", str(ORPHAN), "--stage", "2"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "task sidechain a0b1c2d" in out and "9d0e0000-0000-4000-8000-000000000001" in out


def test_a_file_holding_two_sessions_gives_each_its_own_tree(
        capsys: pytest.CaptureFixture[str]) -> None:
    report = replay(capsys, RESUMED)["replays"]
    sessions = [r["session"] for r in report]
    assert sessions == ["3c3c0000-0000-4000-8000-000000000001",
                        "4e4e0000-0000-4000-8000-000000000002"]
    assert [r["requests"] for r in report] == [2, 2]
    for r in report:
        assert r["tree"]["recorded_usd"] == pytest.approx(usage_cost(RESUMED,
                                                                     session=r["session"]))


def test_a_session_in_several_files_bills_each_usage_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a.jsonl", "b.jsonl"):
        shutil.copy(PARENT, tmp_path / name)
    [tree] = replay(capsys, tmp_path)["replays"]
    [alone] = replay(capsys, PARENT)["replays"]
    assert tree["files"] == ["a.jsonl", "b.jsonl"]
    assert tree["bill"]["recorded_usd"] == pytest.approx(alone["bill"]["recorded_usd"])
    assert tree["requests"] == alone["requests"]


def test_lines_without_a_session_go_with_the_line_before(tmp_path: Path) -> None:
    lines = [{"type": "summary", "summary": "title"},
             {"type": "user", "sessionId": "s1", "message": {"role": "user", "content": "a"}},
             {"type": "file-history-snapshot", "messageId": "m"},
             {"type": "user", "sessionId": "s2", "message": {"role": "user", "content": "b"}}]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (tmp_path / "bare.jsonl").write_text(json.dumps(lines[0]) + "\n")
    trees, failed = group([path, tmp_path / "bare.jsonl"])
    assert failed == []
    lines_read = []
    for tree in trees:
        with tree.loaded():
            lines_read.append((tree.session, len(tree.parent.read().entries)))
    assert lines_read == [("s1", 3), ("s2", 1), (None, 1)]
    assert all(m.parts == {} for t in trees for m in t.members)  # released once replayed


def test_the_tree_table_reads_at_80_columns(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["replay", str(FIXTURES), "--stage", "2"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    for row in ("└ explore a5e1f00", "└ compaction", "= tree", "parent absent: 9d0e0000",
                "4 sessions, 6 threads"):
        assert row in out


def test_bookkeeping_lines_do_not_make_a_parent(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A sub-agent's file that starts with a title line and holds a main-thread queue line is
    still an orphan sidechain, not a parent with nothing to replay."""
    lines = [json.loads(line) for line in ORPHAN.read_text().splitlines()]
    queued = {"type": "queue-operation", "operation": "enqueue", "isSidechain": False,
              "sessionId": lines[0]["sessionId"], "timestamp": lines[0]["timestamp"]}
    path = tmp_path / "agent.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in
                            [{"type": "summary", "summary": "title"}, queued, *lines]))
    report = replay(capsys, path)
    assert report["failed"] == []
    assert [(r["orphan"], r["agent_id"]) for r in report["replays"]] == [(True, "a0b1c2d")]
