"""The chapter-8 worked example (excerpt ch8.3): 35 turns, three 60K-character reads.

Reading the excerpt's table needs one decision: it says snip ("keep the first 3 and the last
47") cuts nothing "at turn 35". That holds only if a "turn" is one message — 35 messages is
fewer than 3 + 47. Counted as user+assistant rounds, 35 turns would be 70 messages and snip
would cut 20. The fixture is therefore taken at 35 messages.
"""

from __future__ import annotations

from typing import Any

from ..runner import load_stage, run
from ..tokens import count_messages

EXAMPLE_THRESHOLD = 120_000  # the excerpt's "for example 120K" L4 threshold
MESSAGES = 35


def _offloaded(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """L3 as stage 3 decides it, without writing files (a what-if on a recorded history)."""
    offload = load_stage(3)
    names = {b["id"]: b["name"] for m in history for b in m["content"] if b["type"] == "tool_use"}
    out = []
    for message in history:
        results = [b for b in message["content"] if b["type"] == "tool_result"]
        chosen = set(offload.choose_offloads(
            [(b["tool_use_id"], names.get(b["tool_use_id"], ""), len(b["content"]))
             for b in results]))
        out.append(dict(message, content=[
            dict(b, content=offload.make_preview(
                b["content"], f".task_outputs/tool-results/{b['tool_use_id']}.txt"))
            if b.get("tool_use_id") in chosen and b["type"] == "tool_result" else b
            for b in message["content"]]))
    return out


def worked_example(seed: int = 0, *, rot: bool = False) -> dict[str, Any]:
    """start → after L3 → after L1 → after L2, in tokens, and whether L4 would run. The
    excerpt's agent finds what it sees: context rot is off unless ``rot`` (§4)."""
    pipeline = load_stage(5)
    history = run(None, "ch8-worked-example", model="claude-sonnet-4-6", seed=seed,
                  brain_options={"rot": rot}).messages[:MESSAGES]
    names = {b["id"]: b["name"] for m in history for b in m["content"] if b["type"] == "tool_use"}
    after_l3 = _offloaded(history)
    after_l1, snipped = pipeline.snip(after_l3)
    after_l2, _ = pipeline.microcompact(after_l1, names)
    table = {"messages": len(history), "start": count_messages(history),
             "after_l3": count_messages(after_l3), "after_l1": count_messages(after_l1),
             "snipped_messages": snipped, "after_l2": count_messages(after_l2),
             "threshold": EXAMPLE_THRESHOLD}
    table["l4_ran"] = table["after_l2"] > EXAMPLE_THRESHOLD
    return table
