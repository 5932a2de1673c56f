"""The loss manifest (issue 8, item 2: "nothing is lost") on runs of stages 2 to 5.

``RunResult.loss`` lists every tool call, file, user message and image of the run with where
it lives now — in the context, in a summary, on disk (offloaded or archived), or nowhere — and
which layer removed it. Each stage's manifest shows its own way of forgetting: truncation
destroys, offload moves to disk, a summary folds and archives, the pipeline's cheap layers
destroy tool output but keep every user text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxlab.loss import IN_CONTEXT, IN_SUMMARY, NOWHERE, ON_DISK, UNREPORTED, manifest
from ctxlab.runner import RunResult, run


@pytest.fixture(scope="module")
def runs() -> dict[str, RunResult]:
    return {"2": run(2, "long-task"), "3": run(3, "long-task"), "4": run(4, "medium-results"),
            "5": run(5, "medium-results"), "5-32k": run(5, "constraint", model="ctxlab-sim-32k")}


def _removed(result: RunResult) -> list:
    assert result.loss is not None
    return [i for i in result.loss.items if i.status != IN_CONTEXT and i.kind != "file"]


def test_every_removed_item_says_which_layer_removed_it(runs: dict[str, RunResult]) -> None:
    for name, result in runs.items():
        for item in _removed(result):
            assert item.why and item.why != UNREPORTED, (name, item)
        json.dumps(result.loss.to_dict())  # the manifest is a JSON document


def test_stage2_truncation_destroys_and_says_so(runs: dict[str, RunResult]) -> None:
    lost = runs["2"].loss.lost()
    assert lost and {i.why for i in lost} == {"truncate"}
    assert all(i.kind in ("tool_use", "user_message") for i in lost)


def test_stage3_offload_moves_results_to_disk_and_loses_nothing(
        runs: dict[str, RunResult]) -> None:
    result = runs["3"]
    assert result.loss.lost() == []
    on_disk = [i for i in result.loss.with_status(ON_DISK) if i.kind != "file"]
    assert on_disk and all(i.kind == "tool_use" and i.why == "offload" for i in on_disk)
    raw = {b["tool_use_id"]: b["content"] for m in result.original if m["role"] == "user"
           for b in m["content"] if b.get("type") == "tool_result"}
    sent = {b["tool_use_id"]: b["content"] for m in result.messages if m["role"] == "user"
            for b in m["content"] if b.get("type") == "tool_result"}
    assert all(len(raw[i.key]) > len(sent[i.key]) for i in on_disk)  # full text, not preview


def test_stage4_summary_archives_and_summarizes(runs: dict[str, RunResult]) -> None:
    result = runs["4"]
    assert result.loss.lost() == []
    tools = result.loss.of("tool_use")
    archived = [i for i in tools if i.where == ".transcripts/session.jsonl"]
    assert archived and all(i.status == ON_DISK and "summary" in i.why for i in archived)
    task = result.loss.of("user_message")[0]
    assert task.status == IN_SUMMARY and task.where == ".transcripts/session.jsonl"


def test_stage5_destroys_only_tool_output_and_keeps_every_user_text(
        runs: dict[str, RunResult]) -> None:
    for name in ("5", "5-32k"):
        result = runs[name]
        assert all(i.status != NOWHERE for i in result.loss.of("user_message")), name
        for item in result.loss.lost():
            assert item.kind == "tool_use"
            assert set(item.why.split(", ")) & {"microcompact", "snip", "blocking"}, item


def test_the_original_history_holds_every_block_that_entered(runs: dict[str, RunResult]) -> None:
    for result in runs.values():
        calls = [b["id"] for m in result.original if m["role"] == "assistant"
                 for b in m["content"] if b.get("type") == "tool_use"]
        results = [b["tool_use_id"] for m in result.original if m["role"] == "user"
                   for b in m["content"] if b.get("type") == "tool_result"]
        assert calls == results and len(set(calls)) == len(calls)
        assert len(result.loss.of("tool_use")) == len(calls)


# ---- the classification itself, on a hand-made case -----------------------------------------

def _text(text: str) -> dict:
    return {"type": "text", "text": text}


def test_each_status_on_a_hand_made_history(tmp_path: Path) -> None:
    (tmp_path / ".task_outputs" / "tool-results").mkdir(parents=True)
    (tmp_path / ".task_outputs" / "tool-results" / "toolu_off.txt").write_text("BIG " * 100)
    (tmp_path / ".transcripts").mkdir()
    archived = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_old", "content": "old output"},
        _text("archived user text")]}
    (tmp_path / ".transcripts" / "session.jsonl").write_text(json.dumps(archived) + "\n{torn")
    (tmp_path / "kept.py").write_text("print('kept')\n")
    original = [
        {"role": "user", "content": [_text("the task"), _text("summarized text"),
                                     _text("archived user text"), _text("forgotten text")]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_old", "name": "read_file",
             "input": {"path": "kept.py"}},
            {"type": "tool_use", "id": "toolu_off", "name": "run_command",
             "input": {"command": "cat big.log"}},
            {"type": "tool_use", "id": "toolu_gone", "name": "run_command",
             "input": {"command": "make"}},
            {"type": "tool_use", "id": "toolu_here", "name": "read_file",
             "input": {"path": "gone.py"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_old", "content": "old output"},
            {"type": "tool_result", "tool_use_id": "toolu_off", "content": "BIG " * 100},
            {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "make output"},
            {"type": "tool_result", "tool_use_id": "toolu_here", "content": "x = 1"}]},
    ]
    reply = "<analysis>thinking</analysis><summary>The user said: summarized text</summary>"
    final = [
        {"role": "user", "content": [_text("the task"), _text("Earlier: The user said: "
                                                             "summarized text")]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_here", "name": "read_file",
             "input": {"path": "gone.py"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_here", "content": "x = 1"}]},
    ]
    found = manifest(original, final, tmp_path, summaries=[reply],
                     why={"tool_use:toolu_gone": "snip"})
    status = {(i.kind, i.key): (i.status, i.where, i.why) for i in found.items}
    assert status[("tool_use", "toolu_here")] == (IN_CONTEXT, "", "")
    assert status[("tool_use", "toolu_off")] == (ON_DISK,
                                                 ".task_outputs/tool-results/toolu_off.txt", "")
    assert status[("tool_use", "toolu_old")][:2] == (ON_DISK, ".transcripts/session.jsonl")
    assert status[("tool_use", "toolu_gone")] == (NOWHERE, "", "snip")
    assert status[("user_message", "user message 1")][0] == IN_CONTEXT
    assert status[("user_message", "user message 2")][0] == IN_SUMMARY
    assert status[("user_message", "user message 3")][:2] == (ON_DISK,
                                                              ".transcripts/session.jsonl")
    assert status[("user_message", "user message 4")][0] == NOWHERE
    assert status[("file", "kept.py")][:2] == (ON_DISK, "kept.py")  # content no longer shown
    assert status[("file", "gone.py")][0] == IN_CONTEXT  # no such file; its call is shown
    assert [i.key for i in found.lost()] == ["toolu_gone", "user message 4"]
    assert found.counts()["tool_use"] == {IN_CONTEXT: 1, ON_DISK: 2, NOWHERE: 1}
