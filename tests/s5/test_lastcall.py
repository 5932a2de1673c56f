"""The prefix hash kept while the tools and the system blocks are the same objects
(``ctxlab.lastcall``) is the plain ``prefix_hash`` of them, request after request: lists
passed on unchanged, a TTL that changes the breakpoints, a tool added, blocks replaced by
equal copies, a new static text."""

from __future__ import annotations

import random
from typing import Any

from s5_pipeline.ttl import FIVE_MINUTES, HOUR, with_ttl
from s5_pipeline.zones import prefix_hash, zoned_system, zoned_tools

from ctxlab.lastcall import LastCall


def _tool(n: int) -> dict[str, Any]:
    return {"name": f"tool_{n}", "description": f"does {n}",
            "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}


def test_the_kept_hash_is_the_plain_one() -> None:
    rng = random.Random(5)
    hashes = LastCall(prefix_hash)
    tools = zoned_tools([_tool(n) for n in range(3)])
    system = zoned_system("static text", "dynamic text")
    computed = 0
    for step in range(300):
        edit = rng.randrange(10)
        if edit == 0:  # the TTL switches: new blocks where there are breakpoints
            ttl = rng.choice([FIVE_MINUTES, HOUR])
            tools, system = with_ttl(tools, ttl), with_ttl(system, ttl)
        elif edit == 1:  # a tool added: the breakpoint moves to the last one
            tools = zoned_tools([{k: v for k, v in t.items() if k != "cache_control"}
                                 for t in tools] + [_tool(len(tools))])
        elif edit == 2:  # equal copies in new lists
            tools, system = [dict(t) for t in tools], [dict(b) for b in system]
        elif edit == 3:  # a new static text
            system = zoned_system(f"static text {rng.randrange(3)}", "dynamic text")
        elif edit == 4:  # a block replaced in place in the list
            system[-1] = dict(system[-1], text=f"dynamic {step}")
        before = hashes.given
        assert hashes(tools, system) == prefix_hash(tools, system), step
        computed += hashes.given is not before
    assert computed < 150  # most requests found the same objects


def test_a_layer_made_incremental_hashes_with_the_memory() -> None:
    # imported here, not above: a test that switches implementations reloads the stages
    from s5_pipeline import make_layer
    from s5_pipeline.zones import prefix_hash as plain

    layer = make_layer()
    assert isinstance(layer.prefix_hash, LastCall)
    assert type(layer).prefix_hash is plain  # the plain function, for the learner
