"""The last resort of excerpt ch8.4: a request rejected as too long despite the pipeline.

The pipeline's estimate under-counts base64 badly (it was fitted on prose and code), so a
history of base64 dumps looks small to it and is rejected by the API. The rejection states
the true size; the pipeline cuts the oldest rounds by that figure, keeps the task and the
newest results, and retries exactly once — then a typed error.
"""

from __future__ import annotations

import base64
import random
from pathlib import Path

import pytest
from s5_pipeline import make_layer
from s5_pipeline.fallback import StillTooLong

from ctxlab.session import Session
from ctxlab.sim import Simulator, make_client
from ctxlab.tokens import count_messages
from ctxlab.tools import definitions

MODEL = "claude-haiku-4-5"


def _blob(chars: int, seed: int) -> str:
    rng = random.Random(seed)
    return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(chars * 3 // 4))).decode()


def _history(rounds: int, chars: int) -> list[dict]:
    history: list[dict] = [{"role": "user", "content": "Decode the attachments."}]
    for n in range(rounds):
        history.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "run_command",
             "input": {"command": f"cat dump-{n}.b64"}}]})
        history.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": _blob(chars, n)}]})
    return history


def _session(tmp_path: Path, sim: Simulator) -> Session:
    return Session(make_client(sim), MODEL, [{"type": "text", "text": "Be careful."}],
                   definitions(), tmp_path)


@pytest.mark.exercise("5.5")
def test_a_rejected_request_is_cut_harder_and_retried_once(tmp_path: Path) -> None:
    sim = Simulator()
    session = _session(tmp_path, sim)
    history = _history(12, 30_000)
    assert count_messages(history) > session.window  # too long in truth …
    sent = make_layer(band=False).prepare(history, session)  # no batch below the trigger
    assert [e["layer"] for e in session.events] == []  # … but not by the pipeline's estimate
    response = session.create(sent)
    assert response.content and [c.status for c in sim.calls] == [400, 200]
    (event,) = session.events
    assert event["layer"] == "fallback" and event["tokens_freed"] > 0
    assert sent[0]["content"][0]["text"] == "Decode the attachments."  # the task is kept …
    assert sent[-1]["content"][0]["tool_use_id"] == "toolu_11"  # … and the newest result
    assert count_messages(sent) < session.window  # the history itself was cut


@pytest.mark.exercise("5.5")
def test_a_second_rejection_is_a_typed_error(tmp_path: Path) -> None:
    sim = Simulator()
    session = _session(tmp_path, sim)
    history = _history(1, 330_000)  # one result larger than the window: no cut can help
    sent = make_layer().prepare(history, session)
    with pytest.raises(StillTooLong, match="still too long after the last-resort cut"):
        session.create(sent)
    assert [c.status for c in sim.calls] == [400, 400]  # one retry, not a loop
