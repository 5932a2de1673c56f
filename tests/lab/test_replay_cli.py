"""``ctxlab replay``: JSON and rich reports, a directory with a progress bar, one clear line per
bad file, exit 2 only when nothing could be replayed (DESIGN §6)."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from ctxlab.cli import main
from ctxlab.commands import replay_cmd, replay_jobs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"


def replay(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    status = main(["replay", *argv, "--json"])
    captured = capsys.readouterr()
    return status, json.loads(captured.out) if captured.out else None, captured.err


def test_a_directory_replays_every_log_with_a_progress_bar(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, int]] = []

    def spy(items: Iterable[Path], description: str, **kwargs: Any) -> Iterator[Path]:
        items = list(items)
        seen.append((description, len(items)))
        yield from items

    monkeypatch.setattr(replay_jobs, "progress", spy)
    status, report, _ = replay(capsys, str(FIXTURES), "--stage", "2", "--window", "400")
    logs = sorted(FIXTURES.glob("*.jsonl"))
    assert status == 0 and seen == [("reading", len(logs)), ("replaying", len(logs))]
    assert [r["file"] for r in report["replays"]] == [p.name for p in logs]
    assert report["failed"] == []
    for r in report["replays"]:
        assert r["violations"] == 0 and r["stage"] == 2 and r["window"] == 400
        assert r["messages"] > 0 and r["requests"] > 0
    assert sum(r["layers"].get("truncate", {}).get("triggers", 0)
               for r in report["replays"]) > 0


class CountingPool(ProcessPoolExecutor):
    """The executor ``--jobs`` uses, counting what it hands out."""

    handed: list[str] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        work = fn.func if isinstance(fn, partial) else fn
        self.handed.append(work.__name__)
        return super().submit(fn, *args, **kwargs)


def test_jobs_replay_the_sessions_in_processes_with_the_same_reports(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``--jobs 2``: the files are read and the sessions replayed in two processes, the
    progress bars count them as they come back, and the report is the one ``--jobs 1``
    prints, to the byte, as JSON and as tables."""
    seen: list[tuple[str, int]] = []

    def spy(items: Iterable[Any], description: str, **kwargs: Any) -> Iterator[Any]:
        count = 0
        for item in items:
            count += 1
            yield item
        seen.append((description, count))

    monkeypatch.setattr(replay_jobs, "progress", spy)
    monkeypatch.setattr(replay_jobs, "ProcessPoolExecutor", CountingPool)
    monkeypatch.setattr(CountingPool, "handed", [])
    logs = len(list(FIXTURES.glob("*.jsonl")))
    printed = {}
    for output in ("--json", "tables"):
        args = [str(FIXTURES), "--stage", "5", "--window", "2000"] + \
            (["--json"] if output == "--json" else [])
        assert main(["replay", *args, "--jobs", "1"]) == 0
        one = capsys.readouterr().out
        assert CountingPool.handed == []
        assert main(["replay", *args, "--jobs", "2"]) == 0
        printed[output] = capsys.readouterr().out
        assert printed[output] == one
        assert CountingPool.handed == ["scan"] * logs + ["_replay"] * logs
        CountingPool.handed.clear()
    replays = json.loads(printed["--json"])["replays"]
    assert len(replays) == logs and sum(r["requests"] for r in replays) > 0
    assert "Replays" in printed["tables"]
    assert seen == [("reading", logs), ("replaying", logs)] * 4


def test_jobs_group_a_session_spread_over_files_as_one_process_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Files read in different processes still make the same trees: a session's main thread
    and its sub-agents in other files, an orphan sub-agent, a file holding two sessions, a
    file that cannot be read — the same reports and the same skipped lines."""
    sessions = FIXTURES.parent / "sessions"
    shutil.copytree(sessions, tmp_path / "logs")
    shutil.copy(FIXTURES / "subagent.jsonl", tmp_path / "logs" / "subagent.jsonl")
    (tmp_path / "logs" / "binary.jsonl").write_bytes(b"\x00\x01")
    printed = []
    for jobs in ("1", "2"):
        assert main(["replay", str(tmp_path / "logs"), "--stage", "3", "--json",
                     "--jobs", jobs]) == 0
        printed.append(capsys.readouterr())
    assert printed[0].out == printed[1].out
    assert printed[0].err == printed[1].err and "binary.jsonl" in printed[1].err
    report = json.loads(printed[1].out)
    assert any(r["sidechains"] for r in report["replays"])  # a tree from several files
    assert any(r["orphan"] for r in report["replays"])
    assert [f["file"] for f in report["failed"]] == ["binary.jsonl"]


def test_the_bar_counts_each_session_when_done_and_the_output_keeps_its_order() -> None:
    """The first session in the output finishes last: every other one still moves the bar
    (an empty batch each), and the results come out in order once it is done; an error is
    raised in its turn, after the results before it."""
    others_done = threading.Event()
    finished: list[int] = []

    def work(item: int) -> int:
        if item == 0:
            assert others_done.wait(timeout=30)
        elif item == 2:
            raise ValueError("two")
        finished.append(item)
        if len(finished) == 3:  # items 1, 3 and 4
            others_done.set()
        return item * 10

    with ThreadPoolExecutor(5) as pool:
        batches = replay_jobs.in_order(pool, work, [0, 1, 2, 3, 4], cost=lambda item: item)
        seen = [next(batches) for _ in range(4)]
        assert seen == [[], [], [], []]  # 1, 2 (its error kept for its turn), 3 and 4 done
        assert next(batches) == [0, 10]
        with pytest.raises(ValueError, match="two"):
            next(batches)


def test_bad_files_get_one_line_each_and_the_rest_is_replayed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(FIXTURES / "resumed.jsonl", tmp_path / "good.jsonl")
    (tmp_path / "binary.jsonl").write_bytes(b"\x00\x01\x02")
    (tmp_path / "titles.jsonl").write_text('{"type": "summary", "summary": "x"}\n')
    status, report, err = replay(capsys, str(tmp_path), "--stage", "3")
    assert status == 0 and [r["file"] for r in report["replays"]] == ["good.jsonl"]
    assert [f["file"] for f in report["failed"]] == ["binary.jsonl", "titles.jsonl"]
    skipped = [line for line in err.splitlines() if line.startswith("skipped")]
    assert len(skipped) == 2 and "binary" in skipped[0] and "no conversation" in skipped[1]


def test_a_line_with_a_lone_surrogate_is_unreadable_and_the_rest_is_replayed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``"\\ud800"`` is valid JSON but no text: the line is skipped like a broken one (it
    used to end the run with UnicodeEncodeError)."""
    lines = (FIXTURES / "resumed.jsonl").read_text(encoding="utf-8").splitlines()
    extra = json.loads(lines[0])
    extra["uuid"], extra["message"]["content"][0]["text"] = "resu-9999", "half \ud800 a pair"
    paired = json.dumps({**extra, "uuid": "resu-9998"}).replace("\\ud800", "\\ud83d\\ude00")
    path = tmp_path / "surrogate.jsonl"
    path.write_text("\n".join([*lines, json.dumps(extra), paired]) + "\n", encoding="utf-8")
    assert "\\ud800" in path.read_text(encoding="utf-8")
    status, report, err = replay(capsys, str(path), "--stage", "3")
    assert status == 0 and report["failed"] == [] and len(report["replays"]) == 1
    assert report["replays"][0]["import"]["broken_lines"] == {"count": 1, "first": [len(lines) + 1]}


def test_exit_two_when_nothing_could_be_replayed(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "only.jsonl").write_text("// nothing but a comment\n")
    status, report, err = replay(capsys, str(tmp_path), "--stage", "2")
    assert status == 2 and report == {"replays": [], "failed": [
        {"file": "only.jsonl", "error": report["failed"][0]["error"]}]}
    assert err.count("\n") == 1


@pytest.mark.parametrize(("argv", "says"), [
    (["missing-dir/", "--stage", "2"], "does not exist"),
    ([str(FIXTURES / "dirty.jsonl"), "--stage", "2", "--set", "nonsense=1"], "does not take"),
    ([str(FIXTURES / "dirty.jsonl"), "--model", "claude-nope"], "unknown model"),
])
def test_ordinary_mistakes_are_one_line(argv: list[str], says: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_one_file_gets_the_full_rich_report(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "split-interleaved.jsonl"
    assert main(["replay", str(path), "--stage", "3", "--set", "per_result=2000"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for expected in ("split-interleaved.jsonl · stage 3", "What each layer did", "offload",
                     "API rules: 7 checks, 0 violations", "written to disk: 1 files",
                     "Estimated bill at claude-sonnet-4-5 prices"):
        assert expected in out


def test_a_window_can_be_written_in_thousands() -> None:
    assert [replay_cmd.tokens(t) for t in ("60000", "60_000", "60k", "1,500")] == \
        [60_000, 60_000, 60_000, 1_500]
    with pytest.raises(Exception, match="positive number of tokens"):
        replay_cmd.tokens("-5")


MASKING = "ctxlab.peers.masking:make_layer"


def test_replay_goes_through_the_named_layer_with_its_options(
        capsys: pytest.CaptureFixture[str]) -> None:
    log = str(FIXTURES / "compacted.jsonl")
    status, masked, _ = replay(capsys, log, "--whole-file", "--layer", MASKING, "--set", "n=1")
    assert status == 0
    status, five, _ = replay(capsys, log, "--whole-file", "--stage", "5")
    assert status == 0
    masked, five = masked["replays"][0], five["replays"][0]
    assert masked["stage"] == MASKING and five["stage"] == 5
    assert masked["layers"]["observation-masking"]["triggers"] > 0
    assert "observation-masking" not in five["layers"]
    status, wider, _ = replay(capsys, log, "--whole-file", "--layer", MASKING, "--set", "n=9")
    assert "observation-masking" not in wider["replays"][0]["layers"]  # n reached the layer


@pytest.mark.parametrize(("argv", "says"), [
    (["--layer", "no_such_module_here:make"], "cannot import 'no_such_module_here'"),
    (["--layer", MASKING, "--set", "nope=1"], "does not take these options"),
    (["--layer", MASKING, "--set", "n=0"], "n must be at least 1"),
    (["--layer", MASKING, "--stage", "5"], "not both"),
])
def test_a_bad_layer_is_one_line(argv: list[str], says: str,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(FIXTURES / "compacted.jsonl"), *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
