"""The static zone's TTL: 5 minutes until the session idles past them, then an hour (guide
§6.8, API notes §1.6–1.7: a 1-hour write costs 2× the input price, a 5-minute one 1.25×).

The helpers are the lab's own (no exercise); the tests through ``prepare`` run exercise 5.5.
"""

from __future__ import annotations

import pytest
from s5_pipeline import Pipeline
from s5help import tool_history

from ctxlab.runner import load_stage, run
from ctxlab.session import Session
from ctxlab.sim import Simulator, make_client
from ctxlab.tools import definitions


def _session(tmp_path, sim: Simulator) -> Session:
    return Session(make_client(sim), "claude-haiku-4-5", [{"type": "text", "text": "Be careful."}],
                   definitions(), tmp_path, now=lambda: sim.clock.now)


def _layer() -> Pipeline:
    return Pipeline(summarize=lambda messages, session: messages)


def _ttls(session: Session) -> list[str]:
    """The TTL of each static breakpoint (the last tool's, the static system block's)."""
    return [b["cache_control"].get("ttl", "5m") for b in [*session.tools, *session.system]
            if "cache_control" in b]


@pytest.mark.exercise("5.5")
def test_requests_within_five_minutes_keep_the_static_zone_on_five_minutes(tmp_path) -> None:
    sim = Simulator()
    session, layer, history = _session(tmp_path, sim), _layer(), tool_history(2, 100)
    for _ in range(3):
        layer.prepare(history, session)
        assert _ttls(session) == ["5m", "5m"]
        sim.clock.advance(290)


@pytest.mark.exercise("5.5")
def test_after_an_idle_past_the_ttl_the_hour_is_kept_and_survives_a_resume(tmp_path) -> None:
    sim = Simulator()
    session, layer, history = _session(tmp_path, sim), _layer(), tool_history(2, 100)
    layer.prepare(history, session)
    sim.clock.advance(301)  # the 5-minute entries are gone: the cache is certainly cold
    layer.prepare(history, session)
    assert _ttls(session) == ["1h", "1h"]
    sim.clock.advance(10)
    layer.prepare(history, session)
    assert _ttls(session) == ["1h", "1h"] and layer.prefix_changes == 0  # cold: no break
    resumed = _session(tmp_path, sim)  # a new process on the same session log
    _layer().prepare(history, resumed)
    assert _ttls(resumed) == ["1h", "1h"]


def test_an_unknown_choice_is_refused() -> None:
    with pytest.raises(ValueError, match="static_ttl"):
        Pipeline(summarize=lambda messages, session: messages, static_ttl="2h")


def test_a_short_task_pays_for_no_hour_it_never_uses() -> None:
    """bugfix-small runs in seconds: the hour's write (2×) buys no read the 5-minute one
    (1.25×) would not have had. Same requests, same reads; only the static write's price."""
    auto = run(None, "bugfix-small", layer=load_stage(5).make_layer(), label="auto")
    hour = run(None, "bugfix-small", layer=load_stage(5).make_layer(static_ttl="1h"),
               label="hour")
    assert sum(r.cache_write_1h for r in auto.records) == 0
    assert sum(r.cache_write_1h for r in hour.records) > 0
    assert [r.cache_read_tokens for r in auto.records] == [
        r.cache_read_tokens for r in hour.records]
    assert auto.summary.tokens_per_task == hour.summary.tokens_per_task
    assert auto.summary.cost_usd < hour.summary.cost_usd


def test_a_prefix_already_on_its_ttl_is_passed_on_as_it_is() -> None:
    """``with_ttl`` returns the very blocks when every breakpoint has the TTL already (what is
    worked out from the prefix is then kept), and otherwise copies with the TTL set."""
    from s5_pipeline.ttl import FIVE_MINUTES, HOUR, with_ttl

    blocks = [{"type": "text", "text": "a"},
              {"type": "text", "text": "b", "cache_control": dict(FIVE_MINUTES)}]
    assert with_ttl(blocks, FIVE_MINUTES) is blocks
    longer = with_ttl(blocks, HOUR)
    assert longer is not blocks and longer[1]["cache_control"] == HOUR
    assert blocks[1]["cache_control"] == FIVE_MINUTES  # the input is not modified
    assert with_ttl(longer, HOUR) is longer
