"""Property test: random request sequences with random breakpoints (R4, R5, R17–R21, R24).

Each example is a sequence of requests that share prefixes of one pool of blocks, with random
breakpoints (TTL 5m/1h/default), optional automatic caching, an optional system prompt and
random pauses on the simulated clock. Every response must satisfy the usage invariant
(``assert_usage_ok``), and its cache read / 5m / 1h split must equal the one predicted by a
small independent model of the documented rules: writes only at breakpoints above the minimum,
20-position lookback (the pool is shorter than that), longest hit, TTL from the start of the
last request that wrote or read the entry. Invalid breakpoint sets must fail with one of the
R4/R5/R24 errors they actually break.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from simcheck import assert_usage_ok, cached, count, create, text, user

from ctxlab.sim import Simulator, make_client

pytestmark = pytest.mark.reliability  # outside make test: make reliability (tests/conftest.py)

MODEL = "claude-opus-5"
MINIMUM = 512  # Opus 5's minimum cacheable prefix
TTL = {"5m": 300.0, "1h": 3600.0}
SIZES = (90, 150, 40, 220, 60, 130, 300, 80, 170, 50, 110, 260)
POOL = [text(n, f"prop-{k}") for k, n in enumerate(SIZES)]
SYSTEM = [{"type": "text", "text": text(200, "prop-system")}]


@dataclass
class Entry:
    ttl: str
    expires: float
    visible: float


@cache
def positions(with_system: bool) -> tuple[int, ...]:
    """Token position of the end of each pool block, measured once with count_tokens."""
    client = make_client(Simulator())
    extra = {"system": SYSTEM} if with_system else {}
    return tuple(count(client, {"model": MODEL, "messages": [user(*POOL[:n])], **extra})
                 for n in range(1, len(POOL) + 1))


STEP = st.fixed_dictionaries({
    "n": st.integers(1, len(POOL)),
    "marks": st.dictionaries(st.integers(0, len(POOL) - 1),
                             st.sampled_from(["5m", None, None, "1h"]), max_size=3),
    "auto": st.sampled_from([None, None, "5m", "1h"]),
    "pause": st.sampled_from([0, 0, 0, 0, 30, 290, 310, 3590, 3610]),
})
# A plan item is a step, or "grow": the previous request with more blocks, its last breakpoint
# moved to the new last block (how a conversation moves its breakpoint forward), or "again":
# the previous request after a pause. Both make cache hits likely. Pauses stay clear of the TTL
# boundaries because each call also advances the clock by its simulated latency (R21's exact
# boundaries are tested in test_sim_caching).
STEPS = st.lists(st.one_of(STEP, st.just("grow"), st.just("again")), min_size=1, max_size=8)
PAUSES = st.sampled_from([0, 290, 290, 310, 3590, 3590, 3610])


def request_of(step: dict[str, Any]) -> dict[str, Any]:
    blocks = [cached(b, step["marks"][k]) if k in step["marks"] else b
              for k, b in enumerate(POOL[:step["n"]])]
    request: dict[str, Any] = {"model": MODEL, "max_tokens": 32, "messages": [user(*blocks)]}
    if step["system"]:
        request["system"] = SYSTEM
    if step["auto"]:
        request["cache_control"] = {"type": "ephemeral", "ttl": step["auto"]}
    return request


def expected_errors(step: dict[str, Any]) -> tuple[list[tuple[int, str]], set[str]]:
    """The breakpoints (block, ttl) of ``step`` and the texts of the rules it breaks."""
    marks = {k: ttl or "5m" for k, ttl in step["marks"].items() if k < step["n"]}
    errors = set()
    last = step["n"] - 1
    if step["auto"]:
        if last in marks and marks[last] != step["auto"]:
            errors.add("cache_control: the last cacheable block already has a cache_control "
                       "with a different ttl")
        marks.setdefault(last, step["auto"])
    ordered = sorted(marks.items())
    if len(ordered) > 4:
        errors.add(f"A maximum of 4 blocks with cache_control may be provided. "
                   f"Found {len(ordered)}.")
    seen_5m = False
    for k, ttl in ordered:
        if ttl == "1h" and seen_5m:
            errors.add(f"messages.0.content.{k}.cache_control.ttl: a ttl='1h' cache_control "
                       "block must not come after a ttl='5m' cache_control block.")
            break
        seen_5m = seen_5m or ttl == "5m"
    return ordered, errors


def predict(store: dict[tuple[bool, int], Entry], marks: list[tuple[int, str]], system: bool,
            now: float, first_token_s: float) -> tuple[int, int, int]:
    """(read, 5m, 1h) by the documented rules; updates ``store`` like the API would."""
    pos = positions(system)
    eligible = [(k, ttl) for k, ttl in marks if pos[k] >= MINIMUM]

    def live(k: int) -> Entry | None:
        entry = store.get((system, k))
        return entry if entry and entry.visible <= now < entry.expires else None

    hit = 0
    for k, _ in eligible:
        for back in range(k, max(-1, k - 20), -1):
            if (entry := live(back)) is not None:
                entry.expires = now + TTL[entry.ttl]
                hit = max(hit, pos[back])
                break
    for k, ttl in eligible:
        if live(k) is None:
            store[(system, k)] = Entry(ttl, now + TTL[ttl], now + first_token_s)
    last = max((pos[k] for k, _ in eligible), default=0)
    one_hour = max((pos[k] for k, ttl in eligible if ttl == "1h" and pos[k] > hit), default=hit)
    creation = max(0, last - hit)
    return hit, creation - (one_hour - hit), one_hour - hit


@settings(max_examples=100, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans(), STEPS, st.data())
def test_usage_partition_matches_the_documented_cache_rules(system, plan, data):
    sim = Simulator()
    client = make_client(sim, max_retries=0)
    store: dict[tuple[bool, int], Entry] = {}
    step: dict[str, Any] = {"n": 1, "marks": {}, "auto": None, "pause": 0}
    for item in plan:
        if item == "grow":
            n = min(len(POOL), step["n"] + data.draw(st.integers(1, 4)))
            marks = dict(step["marks"])
            marks[n - 1] = marks.pop(step["n"] - 1, None)
            step = {**step, "n": n, "marks": marks, "pause": 0}
        elif item == "again":
            step = {**step, "pause": data.draw(PAUSES)}
        else:
            step = item
        step["system"] = system
        sim.clock.advance(step["pause"])
        request = request_of(step)
        marks, errors = expected_errors(step)
        if errors:
            with pytest.raises(anthropic.BadRequestError) as info:
                create(client, request)
            assert info.value.body["error"]["message"] in errors
            continue
        expected = predict(store, marks, step["system"], sim.clock.now, sim.latency.first_token_s)
        message = create(client, request)
        total = assert_usage_ok(client, request, message)
        usage = message.usage
        assert (usage.cache_read_input_tokens, usage.cache_creation.ephemeral_5m_input_tokens,
                usage.cache_creation.ephemeral_1h_input_tokens) == expected
        assert usage.input_tokens == total - max(expected[0], sum(expected))
