"""One context size, measured turn by turn: the layer, the simulator, a full tokenization.

Steady state, as in a long session: the layer has already prepared the history once, then each
measured turn adds one fresh API round and times what the loop runs before the next request —
``layer.admit(results)`` and ``layer.prepare(history)``. Every measured turn is "this history
plus one new round", so all turns of a point have the same size.

The layer is timed twice. First its turns run one after another (``layer_s``, the figure the
targets check): every size then starts each turn from the same state, with the layer's own
data in the CPU caches. Then each turn runs right after a request through the SDK and the
offline simulator, as in the agent loop (``layer_after_request_s``; the requests are timed
too): that request has just flushed the caches, and a 1M-token request flushes more of them
than a 10K one, so even the constant parts of a turn take longer at 1M — a cost of what ran
before, not of the layer's work, and it stops growing once the caches are flushed whole.

The yardstick is one full tokenization of the same context (uncached): what a layer that
re-counts everything every turn would pay at the least. Per-turn figures are medians over the
turns.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .. import models
from ..session import Session
from ..sim import Simulator, make_client
from ..tokens import block_text, encoding
from ..tools import definitions
from .history import ROUND_TOKENS, build, message_tokens

MODEL = "claude-sonnet-4-6"  # a 1M window: every size but 1M fits without compaction
SYSTEM = [{"type": "text", "text": "You are a careful coding agent working in a repository."}]
KEEP_EVERY_RESULT = 1 << 30
"""The layer's ``keep_results``. Below its trigger stage 5 clears old results whenever a batch
repays (§4.6, §6.5), so at no size would the history stay whole; told to keep every result,
each turn takes the band's look, finds nothing to clear and passes: the no-compaction path."""


@dataclass
class BenchSession(Session):
    """A ``Session`` whose window, for the layer's thresholds only, can be declared.

    At 1M tokens the layer would rightly compact in a 1M window; the benchmark measures its
    no-compaction path there, as if the window were ``window_floor``. The band's turns
    (``band``) declare the window outright (``declared``), to put a history at the band's
    lower edge. The simulator keeps the model's real window.
    """

    window_floor: int = 0
    declared: int = 0

    @property
    def window(self) -> int:
        return self.declared or max(self.window_floor, models.get(self.model).context_window)


@dataclass
class _TimedSimulator(Simulator):
    """A simulator that notes how long each request took inside it (without the SDK)."""

    handled_s: list[float] = field(default_factory=list)

    def handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Any:
        start = time.perf_counter()
        try:
            return super().handle(method, path, headers, body)
        finally:
            self.handled_s.append(time.perf_counter() - start)


def billed(usage: Any) -> int:
    """Every input token of a response: uncached, cache read and cache write."""
    return (usage.input_tokens + (usage.cache_read_input_tokens or 0)
            + (usage.cache_creation_input_tokens or 0))


def overhead_tokens() -> int:
    """What the tools and the system prompt cost, as the simulator counts them."""
    client = make_client(Simulator())
    probe = [{"role": "user", "content": "x"}]
    with_all = client.messages.count_tokens(model=MODEL, system=SYSTEM, tools=definitions(),
                                            messages=probe).input_tokens
    bare = client.messages.count_tokens(model=MODEL, messages=probe).input_tokens
    return with_all - bare


def tokenize_seconds(messages: list[dict[str, Any]], repeats: int,
                     clock: Callable[[], float] = time.perf_counter) -> float:
    """Median time of one uncached tokenization of every block's text (on ``clock``)."""
    text = "\n".join(block_text(b) for m in messages for b in m["content"])
    enc = encoding()
    times = []
    for _ in range(repeats):
        start = clock()
        enc.encode(text, disallowed_special=())
        times.append(clock() - start)
    return statistics.median(times)


def measure(stage: ModuleType, target: int, *, turns: int, overhead: int, seed: int = 0,
            repeats: int = 5, round_tokens: int = ROUND_TOKENS) -> dict[str, Any]:
    """Per-turn costs at a context of at most ``target`` tokens (see the module docstring)."""
    history = build(target, overhead=overhead, seed=seed, round_tokens=round_tokens)
    sim = _TimedSimulator()
    with tempfile.TemporaryDirectory(prefix="ctxlab-bench-") as tmp:
        session = BenchSession(make_client(sim), MODEL, list(SYSTEM), definitions(), Path(tmp),
                                now=lambda: sim.clock.now, window_floor=2 * target)
        session.tool_names.update(history.tool_names)
        layer = stage.make_layer(keep_results=KEEP_EVERY_RESULT)
        start = time.perf_counter()
        current = layer.prepare(history.messages, session)
        first = time.perf_counter() - start
        session.create(current)  # the simulator's cache now holds this prefix
        keep = len(current)
        compacted = False

        def turn() -> float:
            """One measured turn: a fresh round on the history, then ``admit`` + ``prepare``."""
            nonlocal current, compacted
            assistant, results, names = history.rounds.next()
            session.tool_names.update(names)
            user = {"role": "user", "content": results}
            messages = current[:keep] + [assistant, user]
            start = time.perf_counter()
            user["content"] = layer.admit(results, session)
            current = layer.prepare(messages, session)
            seconds = time.perf_counter() - start
            compacted = compacted or len(current) != len(messages)
            return seconds

        layer_s = [turn() for _ in range(max(turns, 1))]
        after_request_s, request_s, sizes = [], [], []
        for _ in range(max(turns, 1)):
            start = time.perf_counter()
            response = session.create(current)
            request_s.append(time.perf_counter() - start)
            sizes.append(billed(response.usage))
            after_request_s.append(turn())
        compacted = compacted or bool(session.events)
    point: dict[str, Any] = {
        "target": target,
        "tokens": max(sizes),
        "messages": len(current),
        "new_tokens": sum(message_tokens(m) for m in current[-2:]),
        "layer_s": statistics.median(layer_s),
        "layer_after_request_s": statistics.median(after_request_s),
        "full_tokenize_s": tokenize_seconds(current, repeats),
        "first_prepare_s": first,
        "request_s": statistics.median(request_s),
        "simulator_s": statistics.median(sim.handled_s[1:]),
        "compactions": len(session.events),
        "no_compaction": not compacted,
        "layer_window": session.window,
    }
    point["overhead_ratio"] = point["layer_s"] / point["full_tokenize_s"]
    return point
