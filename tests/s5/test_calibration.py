"""Stage 5 sizes a request by what it measures (guide §9.5; issue 16).

The ratio is learned on the messages alone, the rest of the request (system prompt, tools,
what a client adds that the layer never sees) is measured from the usage and never scaled: a
big unseen part cannot make the layer act early, and what a layer reports freed is what the
API's count of the request lost.
"""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import Usage
from s5_pipeline import Pipeline
from s5_pipeline.calibration import ESTIMATE_ERROR, GROWTH_ERROR, SLACK, Calibration
from s5help import command_output, tool_history

from ctxlab.session import Session
from ctxlab.sim import Simulator, make_client
from ctxlab.tools import definitions

pytestmark = pytest.mark.exercise("5.5")
UNSEEN = 60_000  # tokens the usage reports beyond the messages: a long system prompt, say






def _session(tmp_path, sim: Simulator, system: str = "Be careful.") -> Session:
    return Session(make_client(sim), "claude-haiku-4-5", [{"type": "text", "text": system}],
                   definitions(), tmp_path, now=lambda: sim.clock.now)


def _turns(layer: Pipeline, session: Session, history: list[dict[str, Any]],
           unseen: int) -> None:
    """Prepare turn after turn from the task alone, each usage reporting the messages' count
    plus ``unseen`` (at first nearly all of the request, as in a replayed log)."""
    for end in range(1, len(history) + 1, 2):
        kept = layer.prepare(history[:end], session)
        session.last_usage = Usage(input_tokens=session.count(kept) + unseen, output_tokens=1)


def test_an_unseen_part_of_the_request_does_not_make_the_layer_act(tmp_path) -> None:
    session = _session(tmp_path, Simulator())
    layer = Pipeline(summarize=lambda messages, s: messages)
    # about 33K of messages: with the unseen part, 93K of 200K, under the band's lower edge
    history = tool_history(4, 8_000)
    _turns(layer, session, history, UNSEEN)
    assert session.events == []  # a ratio over the whole request would see far more
    assert layer.calibration.ratio == 1.0  # never counted: nothing was near the band
    size = layer.measure(history, session)
    assert abs(size - (session.count(history) + UNSEEN)) < 0.05 * size


@pytest.mark.checklist("B.31")
def test_freed_is_what_the_count_of_the_request_lost(tmp_path) -> None:
    session = _session(tmp_path, Simulator())
    layer = Pipeline(summarize=lambda messages, s: messages)
    history = tool_history(14, 8_000)
    checked, kept = 0, history[:1]
    for end in range(3, len(history) + 1, 2):
        given = kept + history[end - 2:end]  # as the loop does: what was sent, and the new
        fired = len(session.events)
        kept = layer.prepare(given, session)
        freed = sum(e["tokens_freed"] for e in session.events[fired:])
        if freed:  # the calibrated estimate, within the band it states (0: counted)
            band = sum(e.get("freed_error", 0) for e in session.events[fired:])
            drop = session.count(given) - session.count(kept)
            assert abs(freed - drop) <= band + 2
            checked += 1
        session.last_usage = Usage(input_tokens=session.count(kept) + UNSEEN, output_tokens=1)
    assert checked, "the history passes the trigger"


def test_a_bigger_system_prompt_does_not_scale_the_messages(tmp_path) -> None:
    small, big = _session(tmp_path / "a", Simulator()), _session(
        tmp_path / "b", Simulator(), system="Be careful. " + command_output(0, 40_000))
    freed, ratios = [], []
    for session in (small, big):
        layer = Pipeline(summarize=lambda messages, s: messages)
        history, kept = tool_history(24, 8_000), []
        for end in range(3, len(history) + 1, 2):
            kept = layer.prepare((kept or history[:1]) + history[end - 2:end], session)
            session.last_usage = Usage(input_tokens=session.count(kept) + 500, output_tokens=1)
        freed.append([(e["layer"], e["tokens_freed"]) for e in session.events])
        ratios.append(layer.calibration.ratio)
    assert freed[0] and freed[0] == freed[1]
    assert ratios[0] == ratios[1]  # learned on the messages only: the prompt is not in it


def test_the_calibration_keeps_the_unseen_part_apart() -> None:
    calibration = Calibration()
    assert calibration.size(10_000, fixed=700) == 10_700  # no usage yet: what it sees
    calibration.sent = (None, 10_000)
    calibration.learn(Usage(input_tokens=30_000, output_tokens=1))
    assert calibration.unseen(fixed=700) == 20_000
    calibration.counted(11_000, 10_000)  # the API counts 10 % more than the estimate
    assert calibration.ratio == pytest.approx(1.1)
    assert calibration.size(20_000, fixed=700) == 22_000 + 30_000 - 11_000


def test_the_growth_between_untouched_requests_is_calibrated_on_the_usage() -> None:
    """Content the estimate under-counts (a third of its cost, say base64): the usage of two
    requests that no layer touched measures what was added, and the next growth is sized at
    that rate; a layer that changed the history breaks the chain for one request. Between
    usages the size follows the estimate: what is added at the growth's rate, what a layer
    removes at the mean of every growth (older content, of any kind), with an error band
    that covers the part sized from the estimate only (wider for what was removed)."""
    calibration = Calibration()
    for estimate, used in ((1_000, 1_500), (2_000, 4_500)):  # + 1,000 estimated, + 3,000 used
        calibration.sent = (None, estimate)
        calibration.learn(Usage(input_tokens=used, output_tokens=1))
    assert calibration.growth == pytest.approx(3.0)
    assert calibration.size(2_500, fixed=700) == 4_500 + 1_500
    assert calibration.size(1_500, fixed=700) == 4_500 - 1_500  # removed 500, at the mean
    # added: the growth's error, and what the framing of its 1,000-token step may move it
    assert calibration.error(2_500, fixed=700) == SLACK + round(
        GROWTH_ERROR * 1_500 + SLACK * 500 / 1_000)
    # removed: the error of any kind of content (the mean was not learned on it)
    assert calibration.error(1_500, fixed=700) == SLACK + round(ESTIMATE_ERROR * 1_500)
    assert calibration.error(2_000, fixed=700) == SLACK  # nothing sized from the estimate
    calibration.changed()  # a layer acted: the next request may be smaller
    calibration.sent = (None, 3_000)
    calibration.learn(Usage(input_tokens=9_500, output_tokens=1))
    assert calibration.growth == pytest.approx(3.0)  # not learned across the change
    calibration.sent = (None, 3_100)  # + 100: too little to learn from
    calibration.learn(Usage(input_tokens=9_900, output_tokens=1))
    assert calibration.growth == pytest.approx(3.0)


def test_a_count_that_fails_leaves_the_estimate(tmp_path) -> None:
    """``count_tokens`` rate-limited: the layer acts on its estimate, at once (no SDK retry
    waits), and still reports what it did."""
    sim = Simulator()
    sim.faults.add("rate_limit", 1_000, when=lambda req: req.max_tokens is None)  # counts only
    session = _session(tmp_path, sim)
    layer = Pipeline(summarize=lambda messages, s: messages)
    layer.prepare(tool_history(24, 8_000), session)  # no usage yet: too uncertain, so it counts
    assert session.events and all(e["tokens_freed"] > 0 for e in session.events)
    assert layer.calibration.ratio == 1.0  # nothing was counted
    assert {c.status for c in sim.calls} == {429}  # one try per count, nothing else sent

