"""The simulator's shortcuts give what the long way gives (issue 49).

A request's blocks are rendered once per content (``content`` keys, ``render``'s memo), the
common block shapes skip the full shape check (``schema._plain``), a body without surrogate
escapes gets only the depth walk (``guard``), and the collector is paused while one request is
answered (``collector``). Each
test sets the shortcut beside the slow path it replaces, on the shapes the slow path treats
apart: ``is_error``, ``cache_control``, nested tool input, images, documents with citations,
thinking, floats and the JSON types Python compares equal.
"""

from __future__ import annotations

import base64
import gc
import json
import struct
from typing import Any

import pytest

from ctxlab.sim import content, guard, render, schema, thinking
from ctxlab.sim.collector import paused
from ctxlab.sim.errors import APIError


def png(width: int, height: int) -> dict[str, Any]:
    """An image source whose PNG header gives its size."""
    header = (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR"
              + struct.pack(">II", width, height) + b"\x08\x02\x00\x00\x00")
    return {"type": "base64", "media_type": "image/png",
            "data": base64.b64encode(header).decode()}


BREAKPOINT = {"type": "ephemeral", "ttl": "1h"}
BLOCKS: list[dict[str, Any]] = [
    {"type": "text", "text": "plain words"},
    {"type": "text", "text": "plain words", "cache_control": BREAKPOINT},
    {"type": "tool_use", "id": "toolu_1", "name": "edit",
     "input": {"path": "a.py", "lines": [3, 4.5, -0.0], "dry": False, "note": None,
               "nested": {"deep": [{"k": "v"}]}}},
    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "boom", "is_error": True},
    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "boom", "is_error": False},
    {"type": "tool_result", "tool_use_id": "toolu_1", "cache_control": {"type": "ephemeral"},
     "content": [{"type": "text", "text": "see"}, {"type": "image", "source": png(900, 600)}]},
    {"type": "image", "source": png(3000, 2000)},
    {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
    {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "doc"},
     "citations": {"enabled": True}, "title": "T"},
    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
    {"type": "redacted_thinking", "data": "opaque"},
    {"type": "compaction", "content": None},
]


@pytest.mark.parametrize("value", [
    "s", 0, 1, -7, 10**30, 1.5, -0.0, float("inf"), True, False, None, [], {},
    [1, "1", 1.0, True, None, [2, {"a": [3]}]], {"b": 1, "a": {"z": [True, 0.1]}},
])
def test_a_value_comes_back_from_its_key_with_its_types_and_order(value):
    back = content.value(content.key(value))
    assert json.dumps(back) == json.dumps(value)
    assert type(back) is type(value)
    if isinstance(value, dict):
        assert list(back) == list(value)


def test_values_python_compares_equal_but_json_writes_apart_have_different_keys():
    variants = [True, 1, 1.0, "1", [1], {"1": 1}, 0.0, -0.0, False, 0, None]
    keys = [content.key(v) for v in variants]
    assert len(set(keys)) == len(variants)
    assert content.key({"a": 1, "b": 2}) != content.key({"b": 2, "a": 1})  # order kept


def test_what_is_not_json_has_no_key():
    class Text(str):
        pass

    for value in [(1, 2), Text("x"), {"a": object()}, [b"raw"], {"a": [Text("y")]}]:
        assert content.key(value) is None
    assert content.block_key(Text("x")) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b["type"])
@pytest.mark.parametrize("role", ["user", "assistant"])
def test_a_memoised_block_renders_as_the_long_way_does(block, role):
    slow = render._block_render(role, block)
    assert render._message_block(role, block) == slow
    fresh = json.loads(json.dumps(block))  # a new request: equal content, new objects
    hits = render._keyed_block.cache_info().hits
    assert render._message_block(role, fresh) == slow
    assert render._keyed_block.cache_info().hits == hits + 1


def test_a_breakpoint_changes_neither_tokens_nor_digest_but_content_does():
    plain, marked = BLOCKS[0], BLOCKS[1]
    assert render._message_block("user", plain) == render._message_block("user", marked)
    failed, passed = BLOCKS[3], BLOCKS[4]
    assert render._message_block("user", failed) != render._message_block("user", passed)
    assert render._message_block("user", plain) != render._message_block("assistant", plain)


def test_a_block_without_a_key_is_rendered_the_long_way():
    block = {"type": "tool_use", "id": "toolu_1", "name": "edit", "input": {"at": (1, 2)}}
    assert content.block_key(block) is None
    assert render._message_block("assistant", block) == render._block_render("assistant", block)


def test_a_count_renders_the_positions_of_a_request_without_their_keys():
    """``count_tokens`` renders without prefix hashes: the same positions, tokens and
    totals as a request that caches, breakpoints and all, so the count is the same."""
    messages = [{"role": "user", "content": [b]} if b["type"] not in ("tool_use", "thinking",
                                                                      "redacted_thinking")
                else {"role": "assistant", "content": [b]} for b in BLOCKS]
    body = {"model": "claude-opus-5", "max_tokens": 1, "messages": messages,
            "system": [{"type": "text", "text": "be brief", "cache_control": BREAKPOINT}],
            "tools": [{"name": "edit", "input_schema": {"type": "object"}}],
            "thinking": {"type": "enabled", "budget_tokens": 1024}}
    full = render.render(schema.parse(body, {}))
    counted = render.render(schema.parse(body, {}), chained=False)
    assert counted.total == full.total > 0
    assert [p._replace(key="") for p in full.positions] == list(counted.positions)
    assert len({p.key for p in full.positions}) == len(full.positions)


SHAPES: list[Any] = [
    *BLOCKS,
    {"type": "text", "text": 5},
    {"type": "text"},
    {"type": "textual", "text": "x"},
    {"type": ["text"], "text": "x"},
    {"text": "x"},
    "text",
    {"type": "tool_use", "id": "t", "name": "n", "input": []},
    {"type": "tool_result", "tool_use_id": "t", "content": None},
    {"type": "tool_result", "tool_use_id": "t", "content": 3},
    {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": 1}]},
    {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "thinking"}]},
    {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "x"}]},
    {"type": "thinking", "thinking": "t", "signature": "s", "cache_control": BREAKPOINT},
    {"type": "text", "text": "x", "cache_control": {"type": "persistent"}},
    {"type": "text", "text": "x", "cache_control": {"type": "ephemeral", "ttl": "2h"}},
    {"type": "text", "text": "x", "cache_control": {"type": "ephemeral", "ttl": 5}},
    {"type": "text", "text": "x", "cache_control": {"ttl": "5m"}},
    {"type": "text", "text": "x", "cache_control": "ephemeral"},
    {"type": "redacted_thinking", "data": "d", "cache_control": {"type": "ephemeral"}},
    {"type": "tool_use", "id": "t", "name": "n", "input": {},
     "cache_control": {"type": "ephemeral", "ttl": "1h"}},
    {"type": "tool_result", "tool_use_id": "t", "content": "x",
     "cache_control": {"type": "ephemeral", "ttl": None}},
    {"type": "compaction", "content": ["x"]},
    {"type": "compaction", "content": "summary"},
    {"type": "compaction"},
    {"type": "image", "source": {"type": "base64", "media_type": "image/bmp", "data": ""}},
]


@pytest.mark.parametrize("block", SHAPES, ids=repr)
def test_the_quick_shape_look_vouches_only_for_blocks_the_full_check_passes(block):
    allowed = schema.MESSAGE_TYPES
    try:
        schema._check_block(block, "messages.0.content.0", allowed)
    except APIError:
        assert not schema._plain(block, allowed)
    assert not schema._plain(block, ("text",)) or block.get("type") == "text"


def test_the_quick_look_takes_the_common_shapes():
    common = [BLOCKS[0], BLOCKS[1], BLOCKS[2], BLOCKS[3], BLOCKS[9], BLOCKS[11],
              {"type": "tool_result", "tool_use_id": "t",
               "content": [{"type": "text", "text": "x"}]}]
    assert all(schema._plain(b, schema.MESSAGE_TYPES) for b in common)


def test_a_message_of_plain_blocks_is_a_copy_the_simulator_can_change():
    blocks = [BLOCKS[0], BLOCKS[3]]
    body = {"model": "claude-opus-5", "max_tokens": 1,
            "messages": [{"role": "user", "content": blocks},
                         {"role": "user", "content": [BLOCKS[0]]}]}
    req = schema.parse(body, {})
    assert len(req.messages) == 1 and len(req.messages[0]["content"]) == 3
    assert len(blocks) == 2  # merging R3's turns left the client's list alone


def nested(depth: int, kind: str) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"a": value} if kind == "dict" else [value]
    return value


def walk(payload: Any, strings: bool) -> str | None:
    try:
        guard.check(payload, strings)
    except APIError as error:
        return error.message
    return None


@pytest.mark.parametrize("kind", ["dict", "list"])
def test_the_depth_walk_finds_what_the_string_walk_finds(kind):
    for depth in (1, guard.MAX_DEPTH - 1, guard.MAX_DEPTH, guard.MAX_DEPTH + 1, 400):
        payload = nested(depth, kind)
        body = {"model": "m", "messages": [{"content": [payload, "x"]}], "n": 1}
        for value in (payload, body, [1, payload], "scalar", 3):
            assert walk(value, False) == walk(value, True)
    assert walk(nested(guard.MAX_DEPTH, kind), False) is None
    assert walk(nested(guard.MAX_DEPTH + 1, kind), False) is not None


def test_the_collector_is_paused_inside_and_left_as_it_was_found():
    was = gc.isenabled()
    try:
        gc.enable()
        with paused():
            assert not gc.isenabled()
            with paused():
                assert not gc.isenabled()
            assert not gc.isenabled()
        assert gc.isenabled()
        gc.disable()
        with paused():
            pass
        assert not gc.isenabled()
        gc.enable()
        with pytest.raises(ValueError), paused():
            raise ValueError
        assert gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_a_signature_is_verified_once_and_answers_as_decoding_it():
    block = {"type": "thinking", "thinking": "weigh both"}
    signed = thinking.sign(block, message_id="msg_2", index=0, count=1)
    forged = signed[:-1] + ("0" if signed[-1] != "0" else "1")
    for signature in (signed, forged, "not base64!", "", signed + "."):
        assert thinking._verified(signature) == thinking.decode(signature)
        assert thinking._verified(signature) == thinking.decode(signature)  # from the memo
    for text, found in (("weigh both", None), ("weigh neither", (0, "modified"))):
        for _ in range(2):
            given = [{"type": "thinking", "thinking": text, "signature": signed, "_pos": 0}]
            assert thinking.problem(given) == found
    assert thinking.problem([dict(block, signature=forged, _pos=3)]) == (3, "signature")


def test_a_signature_is_made_once_and_still_tells_true_from_1():
    block = {"type": "thinking", "thinking": "weigh both"}
    first = thinking.sign(block, message_id="msg_1", index=0, count=1)
    assert thinking.sign(dict(block), message_id="msg_1", index=0, count=1) == first
    assert thinking.problem([dict(block, signature=first, _pos=0)]) is None
    flagged = thinking.sign(block, message_id="msg_1", index=False, count=True)
    assert thinking.decode(flagged) == {"m": "msg_1", "i": False, "n": True,
                                        "h": thinking.decode(first)["h"]}
