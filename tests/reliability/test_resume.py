"""Crash and resume (issue 8, items 2 and 3): a run killed at any turn resumes byte-identical.

A run is killed — an exception out of the observer at a random turn, or ``SIGKILL`` to a child
process at a random moment — and resumed with ``runner.run(..., workspace=W, resume=True)``: a
new context layer over the same workspace (stage 5 reloads its frozen decisions and the user's
texts from the session log) and the history read back from the session journal
(``ctxlab.journal``). The first request after the resume is byte for byte the last one sent
before the crash, and — since the simulated agent answers from the request alone — every later
request is byte for byte what the uninterrupted run sent.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from faultkit import Bench, layer_options
from s5_pipeline.ledger import LOG, Ledger

from ctxlab import runner
from ctxlab.cli import main
from ctxlab.journal import JOURNAL, JournalError, resume_point
from ctxlab.telemetry import read_jsonl, read_records

UNCALIBRATED = pytest.mark.xfail(strict=True, reason=(
    "stage 5 clears from the first request, and a resumed pipeline sizes the request without "
    "the calibration the first process had learned from its usages (§9.5: the part of the "
    "request beyond the messages is the estimate until a usage is reported): on the 32K "
    "window, where stage 5's band and its trigger coincide, a resumed run summarizes a "
    "request earlier than the uninterrupted one"))
CASES = [(3, "long-task", None), (4, "medium-results", "ctxlab-sim-32k"),
         (5, "constraint", "ctxlab-sim-32k"),
         pytest.param(5, "medium-results", "ctxlab-sim-32k", marks=UNCALIBRATED)]
CRASHES_PER_CASE = 2


class Killed(BaseException):
    """Stands for the process dying: nothing in the run catches it."""


def _run(stage: int, scenario: str, model: str | None, bench: Bench | None = None,
         **options: Any) -> tuple[Any, Bench]:
    bench = bench or Bench(scenario)
    result = runner.run(stage, scenario, model=model, simulator=bench.sim,
                        layer_options=layer_options(stage) if stage >= 4 else None, **options)
    return result, bench


@cache
def uninterrupted(stage: int, scenario: str, model: str | None) -> tuple[str, ...]:
    """The agent requests of an uninterrupted run, as JSON text."""
    result, bench = _run(stage, scenario, model)
    assert result.summary.success
    return tuple(json.dumps(b, sort_keys=True) for b in bench.agent_bodies())


def crash_then_resume(tmp_path: Path, stage: int, scenario: str, model: str | None, *,
                      at_turn: int | None, kind: str = "agent"
                      ) -> tuple[list[str], list[str], Any, Path]:
    """(requests before the crash, requests after the resume, the resumed run's result, the
    workspace)."""
    workspace = tmp_path / f"ws-{stage}-{scenario}-{kind}-{at_turn}"

    def die(record: Any) -> None:
        if record.kind == kind and at_turn in (None, record.turn):
            raise Killed

    before = Bench(scenario)
    with pytest.raises(Killed):
        _run(stage, scenario, model, before, workspace=workspace, on_record=die)
    resumed, after = _run(stage, scenario, model, workspace=workspace, resume=True)
    return ([json.dumps(b, sort_keys=True) for b in before.agent_bodies()],
            [json.dumps(b, sort_keys=True) for b in after.agent_bodies()], resumed, workspace)


def _crash_points(stage: int, scenario: str, turns: int) -> list[int]:
    rng = random.Random(f"crash:{stage}:{scenario}")
    return sorted(rng.sample(range(1, turns), CRASHES_PER_CASE))


@pytest.mark.parametrize(("stage", "scenario", "model"), CASES)
def test_a_crash_at_a_random_turn_resumes_byte_identical(
        tmp_path: Path, stage: int, scenario: str, model: str | None) -> None:
    full = uninterrupted(stage, scenario, model)
    for turn in _crash_points(stage, scenario, len(full)):
        before, after, resumed, _ = crash_then_resume(tmp_path, stage, scenario, model,
                                                      at_turn=turn)
        assert before == list(full[:turn])
        assert after[0] == before[-1]  # the last request before the crash, byte for byte
        assert after == list(full[turn - 1:])  # and then exactly the uninterrupted run
        assert resumed.summary.success


def _results(body: str) -> dict[str, Any]:
    return {b["tool_use_id"]: b["content"] for m in json.loads(body)["messages"]
            for b in m["content"] if b.get("type") == "tool_result"}


@pytest.mark.parametrize("stage", [4, 5])
def test_a_crash_inside_a_summary_call_resumes(tmp_path: Path, stage: int) -> None:
    """Killed in the middle of a compaction. Stage 4 logs nothing before the summary returns:
    the resume re-sends the last request byte for byte. Stage 5 may already have frozen some
    clearing decisions for the request it was preparing: they hold from then on, so the resume
    sends the last request with exactly those blocks replaced by their frozen content."""
    full = uninterrupted(stage, "constraint", "ctxlab-sim-32k")
    before, after, resumed, workspace = crash_then_resume(
        tmp_path, stage, "constraint", "ctxlab-sim-32k", at_turn=None, kind="summary")
    assert before == list(full[:len(before)])
    last, first = _results(before[-1]), _results(after[0])
    changed = {k for k in last if first[k] != last[k]}
    assert set(first) == set(last)
    if stage == 4:
        assert after[0] == before[-1]
    frozen = Ledger(workspace).decisions
    assert all(first[k] == frozen[k]["content"] for k in changed)
    strip = [json.loads(b) for b in (before[-1], after[0])]
    for body in strip:
        body["messages"] = [[b for b in m["content"] if b.get("type") != "tool_result"]
                            for m in body["messages"]]
    assert strip[0] == strip[1]  # apart from those results, byte-identical
    assert resumed.summary.error is None  # the calls of that turn ran again: at least once


def test_frozen_decisions_are_the_only_bytes_a_result_ever_changes_to(tmp_path: Path) -> None:
    """Decide once (§6.9): across every request of a run, a tool result is sent as the tool
    returned it, then as each decision logged for it, in log order — never as anything else,
    never back. A new ``Ledger`` over the same workspace reloads exactly those decisions."""
    result, bench = _run(5, "medium-results", "ctxlab-sim-32k", workspace=tmp_path / "ws")
    logged: dict[str, list[Any]] = {}
    for entry in read_records(tmp_path / "ws" / LOG):
        logged.setdefault(entry["id"], []).append(entry["content"])
    assert {e for e in Ledger(tmp_path / "ws").decisions} == set(logged)
    assert any(len(v) for v in logged.values())
    original = {b["tool_use_id"]: b["content"] for m in result.original
                for b in m["content"] if b.get("type") == "tool_result"}
    seen: dict[str, list[Any]] = {}
    for body in bench.agent_bodies():
        for message in body["messages"]:
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    values = seen.setdefault(block["tool_use_id"], [])
                    if not values or values[-1] != block["content"]:
                        values.append(block["content"])
    for tool_id, values in seen.items():
        allowed = [original[tool_id], *logged.get(tool_id, [])]
        positions = [allowed.index(v) for v in values]  # ValueError: bytes nobody decided
        assert positions == sorted(set(positions)), tool_id  # in order, never back


def test_a_journal_that_cannot_be_resumed_says_why(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="nothing to resume"):
        resume_point(tmp_path)
    path = tmp_path / JOURNAL
    path.parent.mkdir(parents=True)
    path.write_text('{"keep": 0, "add": [{"role": "user", "content": "x"}]}\nnot json\n'
                    '{"keep": 1, "add": []}\n')
    with pytest.raises(JournalError, match="corrupt"):
        resume_point(tmp_path)
    path.write_text('{"keep": 5, "add": []}\n')
    with pytest.raises(JournalError, match="entry 1"):
        resume_point(tmp_path)


CHILD = textwrap.dedent("""
    import json, os, sys
    sys.path.insert(0, {tests!r})
    import ctxlab
    ctxlab.use("solutions")
    from faultkit import Bench, layer_options
    from ctxlab import runner
    bench = Bench("medium-results")
    sent = open({sent!r}, "ab")
    handle = bench.sim.handle
    def record(method, path, headers, body):
        if "count_tokens" not in path:  # model calls only
            sent.write(body + b"\\n"); sent.flush(); os.fsync(sent.fileno())
        return handle(method, path, headers, body)
    bench.sim.handle = record
    def tick(record):
        print(record.turn, flush=True)
    runner.run(5, "medium-results", model="ctxlab-sim-32k", simulator=bench.sim,
               layer_options=layer_options(5), workspace={workspace!r}, on_record=tick)
""")


@pytest.mark.parametrize("seed", [pytest.param(1, marks=UNCALIBRATED), 2])
def test_sigkill_at_a_random_moment_then_resume(tmp_path: Path, seed: int) -> None:
    """A real kill: the child dies wherever it is (mid-tool, mid-write); the journal, the
    session log and the files on disk still resume, and the first request after the resume
    is one the child had sent, byte for byte."""
    rng = random.Random(seed)
    workspace, sent = tmp_path / "ws", tmp_path / "sent.jsonl"
    code = CHILD.format(tests=str(Path(__file__).parent), sent=str(sent),
                        workspace=str(workspace))
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                             cwd=Path(__file__).parents[2], env={**os.environ})
    kill_after = rng.randrange(3, 40)
    assert child.stdout is not None
    for line in child.stdout:
        if int(line) >= kill_after:
            break
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    lines = sent.read_bytes().split(b"\n")
    bodies = [json.loads(line) for line in lines[:-1]]  # the last one may be torn
    agent = [b for b in bodies if (b.get("tool_choice") or {}).get("type") != "none"]
    point = resume_point(workspace)
    assert point.torn_lines in (0, 1)
    resumed, after = _run(5, "medium-results", "ctxlab-sim-32k", workspace=workspace,
                          resume=True)
    first = after.agent_bodies()[0]
    assert first in agent[-2:]  # the journal is at most one request behind the wire
    assert first == agent[point.requests - 1]
    assert resumed.summary.error is None
    assert read_jsonl(workspace / JOURNAL).torn_lines == 0  # a torn tail was cut, not extended
    assert Ledger(workspace).decisions  # the session log still reads (torn lines skipped)


def test_the_cli_keeps_a_workspace_and_resumes_it(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    workspace = str(tmp_path / "ws")
    argv = ["run", "--stage", "5", "--scenario", "bugfix-small", "--workspace", workspace,
            "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["success"] and (tmp_path / "ws" / JOURNAL).is_file()
    assert main([*argv, "--resume"]) == 0  # resumes at the last request: one more answer
    again = json.loads(capsys.readouterr().out)
    assert again["success"] and again["turns"] == 1
