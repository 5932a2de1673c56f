"""The generator itself: every history it makes is a request the simulated API accepts.

Without this, a failing property could be the generator's fault. The same check also shows
that the generator reaches every shape the properties are about.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st
from strategies import blocks_of, cases, histories, tool_ids, user_texts

from ctxlab.replay.check import violation

MODEL = "ctxlab-sim-32k"


def shapes(messages: list[dict]) -> set[str]:
    """Which of the issue's shapes a history holds."""
    found = set()
    roles = [m["role"] for m in messages]
    if any(a == b == "assistant" for a, b in zip(roles, roles[1:], strict=False)):
        found.add("split assistant")
    if any(a == b == "user" for a, b in zip(roles, roles[1:], strict=False)):
        found.add("split user")
    for message in messages:
        blocks = blocks_of(message)
        kinds = Counter(b.get("type") for b in blocks)
        if kinds["tool_use"] > 1:
            found.add("parallel calls")
        if kinds["thinking"]:
            found.add("thinking")
        if kinds["image"] or any(isinstance(b.get("content"), list) and any(
                c.get("type") == "image" for c in b["content"]) for b in blocks):
            found.add("image")
        if any(b.get("type") == "tool_result" and len(str(b.get("content"))) > 40_000
               for b in blocks):
            found.add("huge result")
    return found


@cases("generator")
@given(histories())
def test_every_generated_history_is_a_valid_request(history: list[dict]) -> None:
    assert violation(history, model=MODEL) is None
    assert history[-1]["role"] == "user"
    assert len(set(tool_ids(history))) == len(tool_ids(history))
    assert len(set(user_texts(history))) == len(user_texts(history))


def test_the_generator_reaches_every_shape() -> None:
    seen: set[str] = set()

    @cases("generator")
    @given(histories(min_rounds=6))
    def collect(history: list[dict]) -> None:
        seen.update(shapes(history))

    collect()
    assert seen >= {"split assistant", "split user", "parallel calls", "thinking", "image",
                    "huge result"}


@given(st.data())
@cases("generator")
def test_a_broken_history_is_caught_by_the_oracle(data: st.DataObject) -> None:
    """The oracle has teeth: dropping one tool result makes the history invalid."""
    history = data.draw(histories(min_rounds=1))
    with_results = [i for i, m in enumerate(history)
                    if any(b.get("type") == "tool_result" for b in blocks_of(m))]
    if not with_results:
        return
    i = data.draw(st.sampled_from(with_results))
    kept = [b for b in blocks_of(history[i]) if b.get("type") != "tool_result"]
    broken = history[:i] + ([{"role": "user", "content": kept}] if kept else []) + history[i + 1:]
    assert violation(broken, model=MODEL) is not None
