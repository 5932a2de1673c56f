"""What the model may answer, whatever the responder wanted (API notes §3.6, structured outputs).

The simulator applies these rules to every responder's reply, the plain model and a scenario
agent alike, so no responder can break them:

- a tool call is kept only if the request offers that tool (a model cannot call what it was not
  given) and ``tool_choice`` is not ``none``;
- ``{"type": "tool", "name": N}`` keeps only calls to N; ``any`` and ``tool`` prefill the turn,
  so the answer is tool calls with no text before them, and when the responder wanted no
  (offered) tool, a call is made with an input built from the tool's ``input_schema``;
- ``disable_parallel_tool_use`` leaves at most one call (exactly one when forced);
- ``output_config.format`` (``json_schema``) turns the text answer into one JSON text that
  matches the schema, its strings taken from what the responder said; beside tool calls it
  leaves no free text (every text block of such an answer must parse as the schema).
"""

from __future__ import annotations

import json
from typing import Any

from .instance import instance
from .responder import ModelView, Reply

FORCED = ("any", "tool")


def _texts(blocks: list[dict[str, Any]]) -> list[str]:
    return [b["text"] for b in blocks if b.get("type") == "text" and b.get("text")]


def offered(view: ModelView) -> dict[str, dict[str, Any]]:
    """The tools the model may call in this request, by name (none under ``tool_choice: none``)."""
    if view.tool_choice.get("type") == "none":
        return {}
    return {t["name"]: t for t in view.tools if isinstance(t.get("name"), str)}


def _forced_call(view: ModelView, tools: dict[str, dict[str, Any]],
                 said: list[str]) -> dict[str, Any]:
    """A call to the forced tool (or, for ``any``, the first one offered) matching its schema."""
    choice = view.tool_choice
    name = choice["name"] if choice["type"] == "tool" else next(iter(tools))
    schema = tools[name].get("input_schema") or {"type": "object"}
    value = instance(schema, said or [_last_user_text(view)])
    return {"type": "tool_use", "name": name, "input": value if isinstance(value, dict) else {}}


def _last_user_text(view: ModelView) -> str:
    for message in reversed(view.messages):
        if message["role"] == "user":
            texts = _texts(message["content"])
            if texts:
                return texts[-1][:500]
    return "ok"


def honour(view: ModelView, reply: Reply, *, tool_choice: bool = True) -> Reply:
    """``reply`` as the request's ``tool_choice`` (unless told not to) and output format allow
    it."""
    if tool_choice and not any(b.get("type") == "server_tool_use" for b in reply.content):
        reply = _tool_choice(view, reply)
    return _output_format(view, reply)


def _tool_choice(view: ModelView, reply: Reply) -> Reply:
    choice = view.tool_choice
    kind = choice.get("type", "auto")
    tools = offered(view)
    calls = [b for b in reply.content if b.get("type") == "tool_use" and b.get("name") in tools]
    if kind == "tool":
        calls = [b for b in calls if b["name"] == choice.get("name")]
    if choice.get("disable_parallel_tool_use"):
        calls = calls[:1]
    others = [b for b in reply.content if b.get("type") != "tool_use"]
    if kind in FORCED and tools:
        if not calls:
            calls = [_forced_call(view, tools, _texts(reply.content))]
        thoughts = [b for b in others if b.get("type") in ("thinking", "redacted_thinking")]
        return Reply(thoughts + calls, None)
    kept = {id(b) for b in calls}
    dropped = [b for b in reply.content if b.get("type") == "tool_use" and id(b) not in kept]
    if not dropped:
        return reply
    content = [b for b in reply.content if b.get("type") != "tool_use" or id(b) in kept]
    stop = None if reply.stop_reason == "tool_use" else reply.stop_reason
    if not any(b.get("type") in ("text", "tool_use") for b in content):
        names = ", ".join(sorted({b.get("name", "?") for b in dropped}))
        content.append({"type": "text", "text": f"I would call {names}, but this request does "
                                                "not offer it."})
    return Reply(content, stop)


def output_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema of ``output_config.format`` (or the beta's ``output_format``), or None
    when the answer is free text."""
    config = body.get("output_config")
    fmt = config.get("format") if isinstance(config, dict) else None
    fmt = fmt if fmt is not None else body.get("output_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = fmt.get("schema")
        return schema if isinstance(schema, dict) else {}
    return None


def _output_format(view: ModelView, reply: Reply) -> Reply:
    schema = output_schema(view.body)
    if schema is None:
        return reply
    if any(b.get("type") == "tool_use" for b in reply.content):  # no free text beside the calls
        return Reply([b for b in reply.content if b.get("type") != "text"], reply.stop_reason)
    said = _texts(reply.content) or [_last_user_text(view)]
    answer = json.dumps(instance(schema, said), ensure_ascii=False)
    kept = [b for b in reply.content if b.get("type") not in ("text",)]
    return Reply(kept + [{"type": "text", "text": answer}], reply.stop_reason)
