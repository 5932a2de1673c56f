"""Driving a context layer over a generated history, the way the agent loop would.

``drive`` replays a history round by round: ``prepare`` before each request (its result becomes
the history), the assistant's messages appended as they are, each tool-result message passed
through ``admit``. Every prepared history is checked by the simulator's own validator — the
oracle for "a request the API would reject" — and handed to a ``ctxlab.loss.Tracker``, so the
final loss manifest can say why each piece left. The model behind the session only writes
summaries (``ReplaySummarizer``), as in a replay: it quotes every user message it sees.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from strategies import Messages, blocks_of, rounds

from ctxlab.loss import LossManifest, Tracker
from ctxlab.replay.check import violation
from ctxlab.replay.summarizer import ReplaySummarizer
from ctxlab.session import Session
from ctxlab.sim import Simulator, make_client
from ctxlab.tools import definitions

MODEL = "ctxlab-sim-32k"
FILES = {"src/app.py": "def main():\n    return 42\n", "config.py": "TIMEOUT = 30\n",
         "docs/notes.md": "# Notes\nThe report timeout is 30 s.\n",
         "报告/说明.txt": "报告超时为三十秒。\n", "tests/test_x.py": "def test_x():\n    pass\n"}
"""The files the generated tool calls name (``strategies._tool_use``), created in the workspace
so that a rebuild can read them back and the manifest can find them on disk."""
SYSTEM = [{"type": "text", "text": "You are a careful coding agent (property test)."}]


def session_for(root: Path, *, model: str = MODEL, sim: Simulator | None = None,
                observer: Callable[..., None] | None = None) -> Session:
    """A session on an offline model that writes summaries, working in ``root``."""
    sim = sim or Simulator(responder=ReplaySummarizer())
    return Session(make_client(sim, max_retries=0), model, copy.deepcopy(SYSTEM), definitions(),
                   root, observer=observer, now=lambda: sim.clock.now)


@dataclass
class Drive:
    """What one drive produced: the final history, every prepared request, the manifest."""

    final: Messages
    sent: list[Messages] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    loss: LossManifest | None = None
    events: list[dict[str, Any]] = field(default_factory=list)


def drive(layer: Any, history: Messages, root: Path, *, model: str = MODEL) -> Drive:
    """Feed ``history`` to ``layer`` as the loop would; check every request on the way."""
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    tracker = Tracker(rounds(history)[0])
    events: list[dict[str, Any]] = []

    def observe(kind: str, sent: Messages, response: Any, error: BaseException | None) -> None:
        if response is not None:
            tracker.reply(kind, [b.model_dump(exclude_none=True) for b in response.content])

    session = session_for(root, model=model, observer=observe)
    result = Drive(final=[])

    def request(live: Messages, hook: str) -> None:
        tracker.events(session.events)
        events.extend(session.events)
        session.events = []
        problem = violation(live, model=model)
        if problem is not None:
            result.problems.append(f"after {hook} of request {len(result.sent) + 1}: {problem}")
        if hook == "prepare":
            tracker.sent(live)
            result.sent.append(copy.deepcopy(live))

    live: Messages = copy.deepcopy(rounds(history)[0])
    for part in rounds(history)[1:]:
        live = layer.prepare(live, session)
        request(live, "prepare")
        for message in copy.deepcopy(part):
            blocks = blocks_of(message)
            if message["role"] == "assistant":
                tracker.reply("agent", blocks)
                session.tool_names.update({b["id"]: b["name"] for b in blocks
                                           if b.get("type") == "tool_use"})
                live.append(message)
                continue
            results = [b for b in blocks if b.get("type") == "tool_result"]
            for block in results:
                tracker.result(block)
            rest = [b for b in blocks if b.get("type") != "tool_result"]
            if rest:
                tracker.user(rest)
            if results:
                admitted = layer.admit(results, session)
                live.append({"role": "user", "content": list(admitted) + rest})
                request(live, "admit")
            else:
                live.append(message)
    live = layer.prepare(live, session)
    request(live, "prepare")
    result.final, result.events = live, events
    result.loss = tracker.manifest(live, root)
    return result
