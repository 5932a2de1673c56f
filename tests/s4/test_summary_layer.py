"""The stage-4 layer at work: the compacted history, the §9.5 ledger, the §9.3 guard, the
transcript, and the two demonstrations of §12.4 (free-form vs structured) and §9.6."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
import s4_summarize.compact
from s2_truncate import assert_messages_valid
from s4_summarize import (
    ATTACHMENT_HEADER,
    SUMMARY_HEADER,
    TRANSCRIPT,
    archive,
    ask_for_summary,
    make_layer,
    read_transcript,
    summarizer,
    summary_prompt,
)
from s4help import LATER, RULE, SIM_32K, TASK, make_history

from ctxlab import scenarios
from ctxlab.brain import Brain
from ctxlab.runner import run
from ctxlab.sim import Simulator


def _usage(tokens: int) -> SimpleNamespace:
    return SimpleNamespace(input_tokens=tokens, cache_read_input_tokens=0,
                           cache_creation_input_tokens=0)


def _files(root: Path, names: list[str]) -> None:
    for name in names:
        (root / name).write_text(f"# {name}\nDONE = False\n", encoding="utf-8")


def test_a_compaction_leaves_summary_files_and_the_recent_rounds(session_on, tmp_path) -> None:
    session = session_on()
    names = [f"part{i}.py" for i in range(10)]
    _files(tmp_path, names)
    messages = make_history(10, result_chars=3_000, paths=names, follow_up_at=2)
    layer = make_layer()
    new = layer.compact(messages, session)
    assert_messages_valid(new)
    head, tail = new[0], new[1:]
    assert head["role"] == "user" and head["content"][0]["text"].startswith(SUMMARY_HEADER)
    for text in (TASK, RULE, LATER):
        assert text in head["content"][0]["text"]
    assert head["content"][1]["text"].startswith(ATTACHMENT_HEADER)
    assert tail == messages[len(messages) - len(tail):] and len(tail) >= 2
    archived = read_transcript(tmp_path / TRANSCRIPT)
    assert archived == messages[:len(messages) - len(tail)]
    assert [e["layer"] for e in session.events] == ["summary"]
    assert session.events[0]["trigger"] == "manual" and session.events[0]["tokens_freed"] > 0


@pytest.mark.checklist("B.25")
def test_automatic_compaction_takes_the_same_path(session_on, tmp_path) -> None:
    session = session_on()
    _files(tmp_path, ["a.py", "b.py", "c.py"])
    messages = make_history(3, result_chars=9_000, paths=["a.py", "b.py", "c.py"])
    layer = make_layer()
    layer.prepare(messages, session)  # below the threshold: nothing happens
    assert session.events == []
    session.last_usage = _usage(25_000)  # the API says the last request was over 20,800
    new = layer.prepare(messages, session)
    assert session.events[0]["trigger"].startswith("auto")
    assert '<file path="b.py">' in new[0]["content"][1]["text"]


@pytest.mark.checklist("B.21")
def test_freed_tokens_are_carried_forward(session_on) -> None:
    sim = Simulator(responder=Brain(scenarios.load("constraint")))
    session = session_on(sim=sim)
    messages = make_history(10, result_chars=3_000)
    layer = make_layer()
    layer.prepare(messages, session)  # the history the last request carried
    session.last_usage = _usage(25_000)
    new = layer.compact(messages, session)  # a manual compaction between two turns
    calls = len(sim.calls)
    again = layer.prepare(new, session)  # usage still says 25,000: not compacted again
    assert again[0] is new[0] and len(again) == len(new)
    assert len(sim.calls) == calls and [e["layer"] for e in session.events] == ["summary"]
    assert layer.ledger.size(new, session) == 25_000 - layer.ledger.freed


@pytest.mark.checklist("B.19")
def test_a_compaction_request_never_triggers_a_compaction(session_on) -> None:
    session = session_on()
    layer = make_layer()
    messages = make_history(10, result_chars=3_000)
    inner: list[bool] = []

    def observer(kind, sent, response, error) -> None:  # runs inside the summarizer call
        if kind == "summary":
            session.last_usage = _usage(30_000)
            inner.append(layer.prepare(messages, session) is messages)

    session.observer = observer
    layer.compact(messages, session)
    assert inner == [True] and len(session.events) == 1


@pytest.mark.checklist("B.26")
def test_a_failing_rebuild_does_not_undo_the_compaction(session_on, tmp_path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args, **kwargs) -> str:
        raise OSError("disk on fire")

    monkeypatch.setattr(s4_summarize.compact, "reattach_files", broken)
    _files(tmp_path, ["a.py", "b.py", "c.py", "d.py"])
    messages = make_history(4, result_chars=9_000, paths=["a.py", "b.py", "c.py", "d.py"])
    new = make_layer().compact(messages, session_on())
    assert len(new) < len(messages) and len(new[0]["content"]) == 1


@pytest.mark.checklist("B.15")
def test_rounds_dropped_to_fit_the_summarizer_are_counted(session_on) -> None:
    session = session_on()
    messages = make_history(24, result_chars=9_000)  # about 36K tokens: over the 32K window
    make_layer().compact(messages, session)
    layers = {e["layer"]: e for e in session.events}
    assert set(layers) == {"ptl-drop", "summary"}
    assert "oldest rounds dropped" in layers["ptl-drop"]["trigger"]
    assert layers["ptl-drop"]["tokens_freed"] > 0


@pytest.mark.checklist("B.17")
def test_an_open_breaker_truncates_locally_and_archives_what_it_drops(session_on,
                                                                     tmp_path) -> None:
    sim = Simulator(responder=Brain(scenarios.load("constraint")))
    session = session_on(sim=sim)
    compact = summarizer()  # what a pipeline calls: (messages, session) -> messages
    compact.breaker.failures = compact.breaker.threshold
    messages = make_history(40, result_chars=9_000)
    new = compact(messages, session)
    assert sim.calls == []
    assert_messages_valid(new)
    assert new[0] == messages[0] and new[-1] == messages[-1] and len(new) < len(messages)
    assert read_transcript(tmp_path / TRANSCRIPT) == messages[1:len(messages) - len(new) + 1]


def test_tool_choice_none_makes_a_tool_call_impossible(session_on) -> None:
    sim = Simulator(responder=Brain(scenarios.load("constraint"), tool_instead_of_summary=1.0))
    session = session_on(sim=sim)
    history = make_history(4)
    request = [*history, {"role": "user", "content": [{"type": "text",
                                                       "text": summary_prompt()}]}]
    unguarded = session.create(request, kind="summary")
    assert any(block.type == "tool_use" for block in unguarded.content)  # §9.6
    assert TASK in ask_for_summary(session, history, summary_prompt())


def test_the_transcript_is_append_only_and_survives_a_torn_line(tmp_path: Path,
                                                                monkeypatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    first, second = make_history(1), make_history(2)[1:]
    path = archive(tmp_path, first)
    with path.open("a", encoding="utf-8") as stream:  # a crash in the middle of a write
        stream.write('{"role": "assistant", "content": [{"ty')
    archive(tmp_path, second)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(first) + 1 + len(second)
    assert [json.loads(line) for line in lines[:len(first)]] == first
    assert read_transcript(path) == first + second
    assert len(synced) == 2


@pytest.mark.checklist("B.18")
def test_transient_summarizer_errors_are_retried_with_backoff() -> None:
    sim = Simulator(responder=Brain(scenarios.load("constraint")))
    sim.faults.add("overloaded", count=2, should_retry=False,
                   when=lambda req: req.tool_choice.get("type") == "none")
    waits: list[float] = []
    result = run(4, "constraint", model=SIM_32K, simulator=sim,
                 layer_options={"sleep": waits.append})
    assert result.summary.success, result.problems
    assert waits == [0.05, 0.1] and result.summary.failures == 2


@pytest.mark.checklist("B.28")
def test_a_structured_summary_keeps_the_turn_one_constraint() -> None:
    structured = run(4, "constraint", model=SIM_32K)
    free_form = run(4, "constraint", model=SIM_32K, layer_options={"template": "free-form"})
    assert structured.summary.summary_calls > 0 and free_form.summary.summary_calls > 0
    assert structured.summary.success, structured.problems
    assert not free_form.summary.success
    assert any("config.py" in problem for problem in free_form.problems)


def test_stage_four_finishes_chat_heavy_without_re_reading() -> None:
    # The agent finds what it sees and keeps no re-read habit here: every repeat left is the
    # summary's doing (context rot and the habit are tested in tests/lab).
    result = run(4, "chat-heavy", brain_options={"rot": False, "reread_in_view_rate": 0.0})
    assert result.summary.success, result.problems
    assert result.summary.summary_calls >= 1
    # The summary carries every fact the manifests gave, so none is read again; the rebuild
    # attaches only the five newest files (§10.3), not owners.py, which the agent must see
    # before it edits it: that one read comes back.
    repeated = [c for r in result.records if r.thrash for c in r.tool_calls]
    assert [c["name"] for c in repeated] == ["read_file"]
    assert len(repeated) == 1
