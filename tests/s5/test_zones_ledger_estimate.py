"""Exercise 5.4 (cache zones), frozen decisions and the calibrated estimate."""

from __future__ import annotations

import pytest
from s5_pipeline import calibrate, estimate_tokens, mark_newest, zoned_system, zoned_tools
from s5_pipeline.ledger import Ledger

from ctxlab.tools import definitions


@pytest.mark.exercise("5.4")
@pytest.mark.checklist("B.7")
def test_tools_sorted_with_one_static_breakpoint() -> None:
    tools = zoned_tools(list(reversed(definitions())))
    assert [t["name"] for t in tools] == sorted(t["name"] for t in tools)
    assert [bool(t.get("cache_control")) for t in tools] == [False] * (len(tools) - 1) + [True]


@pytest.mark.exercise("5.4")
@pytest.mark.checklist("B.5")
def test_system_is_split_static_then_dynamic() -> None:
    system = zoned_system("You are careful.", "Today: 2026-11-29")
    assert system[0] == {"type": "text", "text": "You are careful.",
                         "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    assert system[1] == {"type": "text", "text": "Today: 2026-11-29"}  # no marker text sent
    assert zoned_system("You are careful.", "") == system[:1]


@pytest.mark.exercise("5.4")
@pytest.mark.checklist("B.8")
def test_exactly_one_message_breakpoint_on_the_newest_block() -> None:
    messages = [{"role": "user", "content": [{"type": "text", "text": "a",
                                              "cache_control": {"type": "ephemeral"}}]},
                {"role": "assistant", "content": "b"},
                {"role": "user", "content": [{"type": "text", "text": "c"},
                                             {"type": "text", "text": "d"}]}]
    marked = mark_newest(messages)
    marks = [(i, j) for i, m in enumerate(marked) for j, b in enumerate(m["content"])
             if b.get("cache_control")]
    assert marks == [(2, 1)]
    assert "cache_control" in messages[0]["content"][0]  # input not modified


def test_frozen_decisions_replay_byte_identically_after_a_restart(tmp_path) -> None:
    first = Ledger(tmp_path)
    first.record("t1", "[preview of t1]", "offload")
    history = [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "the original"}]}]
    resumed = Ledger(tmp_path)  # a new process reads the session log
    assert resumed.apply(history) == first.apply(history)
    assert resumed.apply(history)[0]["content"][0]["content"] == "[preview of t1]"


def test_the_ids_a_layer_decided_are_those_of_the_whole_log(tmp_path) -> None:
    """``decided_by`` keeps its answer until the next decision, which it then takes in: the
    same ids, in the same order, as a pass over every decision."""
    ledger = Ledger(tmp_path)

    def every(layer: str) -> list[str]:
        return [i for i, d in ledger.decisions.items() if d.get("layer") == layer]

    ledger.record_all({"a": "[a]", "b": "[b]"}, "microcompact")
    assert ledger.decided_by("microcompact") == every("microcompact") == ["a", "b"]
    ledger.record("c", "[c]", "offload")
    ledger.record("a", "[a, noted]", "changed")  # a later decision on a result cleared before
    for layer in ("microcompact", "offload", "changed"):
        assert ledger.decided_by(layer) == every(layer)
    assert ledger.decided_by("microcompact") == ["b"]
    assert Ledger(tmp_path).decided_by("offload") == ["c"]  # a resumed session reads the log


def test_a_torn_log_line_is_ignored(tmp_path) -> None:
    ledger = Ledger(tmp_path)
    ledger.record("t1", "kept", "offload")
    with open(ledger.path, "a", encoding="utf-8") as log:
        log.write('{"id": "t2", "lay')
    assert set(Ledger(tmp_path).decisions) == {"t1"}


PROSE = pytest.mark.xfail(strict=True, reason=(
    "WEIGHTS were fitted on tool output; a request that is mostly the agent's own prose "
    "(bugfix-small's last, about 2K tokens) is underestimated by 10-12 %, 33 % on prose alone"))


@pytest.mark.parametrize("scenario", ["chinese-code", pytest.param("bugfix-small", marks=PROSE),
                                      "long-task"])
def test_calibrated_estimate_is_within_ten_percent_of_reported(scenario: str) -> None:
    from ctxlab.runner import SYSTEM, run

    result = run(1, scenario, model="claude-sonnet-4-6")
    system, tools = [{"type": "text", "text": SYSTEM}], definitions()
    for record in result.records:
        sent = result.messages[: record.messages]
        assert estimate_tokens(sent, system, tools) == pytest.approx(
            record.reported_input_tokens, rel=0.10)


def test_calibrate_recovers_the_weights_that_produced_the_counts() -> None:
    from s5_pipeline.estimate import WEIGHTS, estimate_text

    texts = ["上下文工程 " * 50, "def f(x):\n    return x * 2\n" * 30, "plain words " * 60,
             "key = value\nport = 8080\n" * 40, "2026-11-29 12:00:01 INFO ok\n" * 30,
             "a, b; c. (d) [e] {f} 123 456" * 20]
    fitted = calibrate([(t, estimate_text(t)) for t in texts])
    for name, weight in WEIGHTS.items():
        assert fitted[name] == pytest.approx(weight, abs=1e-6)
