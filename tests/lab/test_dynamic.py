"""The harness's volatile context (``ctxlab.dynamic``, ``Session.dynamic``; §5.2, §6.3)."""

from __future__ import annotations

import pytest

from ctxlab import scenarios
from ctxlab.brain import Brain
from ctxlab.dynamic import EPOCH, render
from ctxlab.ladder.runs import Watcher
from ctxlab.runner import run
from ctxlab.scenarios import ScenarioError
from ctxlab.session import Session
from ctxlab.sim import Simulator, make_client
from ctxlab.tools import definitions


def test_render_each_kind() -> None:
    text = render(("date", "clock", "todo", "git-status"), EPOCH + 61, calls=3,
                  changed=["alerts.py"])
    assert text.splitlines() == ["Today's date: 2026-03-02", "Current time: 08:55:08 UTC",
                                 "Todo list: 3 tool call(s) made so far; keep going until "
                                 "the checks pass", "git status: M alerts.py"]
    assert render((), EPOCH) == ""
    with pytest.raises(ValueError, match="unknown dynamic context"):
        render(("weather",), EPOCH)


def test_scenarios_default_to_the_date_and_reject_unknown_kinds(tmp_path) -> None:
    assert scenarios.load("long-task").dynamic == ("date",)
    assert "clock" in scenarios.load("volatile-context").dynamic
    source = scenarios.load("bugfix-small").path.read_text(encoding="utf-8")
    bad = tmp_path / "bugfix-small.toml"
    bad.write_text(source.replace('goal = ["all-pass"]', 'goal = ["all-pass"]\n'
                                  'dynamic = ["weather"]'), encoding="utf-8")
    with pytest.raises(ScenarioError, match="dynamic: unknown kind 'weather'"):
        scenarios.load(bad)


def _sent(at_end: bool) -> dict:
    sim = Simulator()
    bodies: list[dict] = []
    handle = sim.handle

    def record(method, path, headers, body):
        import json
        bodies.append(json.loads(body))
        return handle(method, path, headers, body)

    sim.handle = record  # type: ignore[method-assign]
    session = Session(make_client(sim), "claude-haiku-4-5", [{"type": "text", "text": "Rules."}],
                      definitions(), ".", dynamic=lambda: "Current time: 08:55:08 UTC",
                      dynamic_at_end=at_end)
    history = [{"role": "user", "content": "the task"}]
    session.create(history)
    assert history == [{"role": "user", "content": "the task"}]  # only on the wire
    return bodies[-1]


@pytest.mark.checklist("B.6")
def test_the_session_sends_it_last_in_system_or_after_the_newest_message() -> None:
    in_system = _sent(at_end=False)
    assert in_system["system"][-1]["text"].startswith("Current time")
    at_end = _sent(at_end=True)
    assert [b["text"] for b in at_end["system"]] == ["Rules."]
    assert at_end["messages"][-1]["content"][-1]["text"].startswith("Current time")


def test_stage_1_needs_nothing_to_send_it() -> None:
    watcher = Watcher(Brain(scenarios.load("bugfix-small")), ("Today's date: 2026-03-02",))
    result = run(1, "bugfix-small", simulator=Simulator(responder=watcher))
    assert result.summary.success and watcher.seen
    assert all(seen for _, seen in watcher.seen)  # every request carried the date
