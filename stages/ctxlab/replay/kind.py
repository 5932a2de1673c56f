"""What a sidechain was for, from what the log says (§11 sub-agents, §12.4 compaction).

Kinds, with the evidence each takes, checked in this order:

- ``compaction``: Claude Code's own summary call, logged as a sidechain whose ``agentId``
  starts with ``acompact`` (real-transcripts §4.4 item 5), or whose prompt asks for "a
  detailed summary of the conversation", or whose only answer is a ``<summary>`` with no tool
  call; it is one request on the parent's history, not an agent at work;
- ``warmup``: a sub-agent whose only prompt is ``Warmup`` (Claude Code 2.0 primes each
  sub-agent type's cache at start); no agent turn either;
- ``explore`` / ``task``: a sub-agent the session started with a tool call whose input names a
  ``subagent_type`` (Claude Code's Task tool); the call is tied to the sidechain by the
  ``agentId`` in its result (``toolUseResult``) or its ``agent_progress`` lines. ``Explore``
  is ``explore``, any other type ``task``; a sidechain no such call names is a ``task``.

A file's name is never evidence: ``subagent.jsonl`` may hold a main thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .lines import Entry

COMPACTION_AGENT = "acompact"
SUMMARY_REQUEST = "detailed summary of the conversation"
WARMUP = "Warmup"
AGENT_WORK = ("explore", "task")
"""The kinds that are an agent at work (their turns show an agent's habits)."""


@dataclass(frozen=True)
class Kind:
    """A sidechain's kind, the sub-agent type its parent asked for, and the evidence."""

    kind: str
    agent_type: str | None
    evidence: str


def _blocks(entry: Entry) -> list[dict[str, Any]]:
    content = (entry.data.get("message") or {}).get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def agent_types(entries: Iterable[Entry]) -> dict[str, str]:
    """``agentId`` → ``subagent_type`` for every sub-agent a call in ``entries`` started."""
    entries = list(entries)
    calls: dict[str, str] = {}  # tool_use id → subagent_type
    for entry in entries:
        for block in _blocks(entry) if entry.type == "assistant" else []:
            tool_input = block.get("input")
            if block.get("type") == "tool_use" and isinstance(tool_input, dict) \
                    and isinstance(tool_input.get("subagent_type"), str):
                calls[str(block.get("id"))] = tool_input["subagent_type"]
    types: dict[str, str] = {}
    for entry in entries:
        result, data = entry.data.get("toolUseResult"), entry.data.get("data")
        if isinstance(result, dict) and isinstance(result.get("agentId"), str):
            for block in _blocks(entry):
                if block.get("tool_use_id") in calls:
                    types[result["agentId"]] = calls[block["tool_use_id"]]
        if isinstance(data, dict) and isinstance(data.get("agentId"), str) \
                and entry.data.get("parentToolUseID") in calls:
            types[data["agentId"]] = calls[entry.data["parentToolUseID"]]
    return types


def is_compaction_call(messages: list[dict[str, Any]]) -> bool:
    """Whether a history is one summary request and its answer."""
    answers = [m for m in messages if m["role"] == "assistant"]
    if len(answers) != 1 or messages[-1] is not answers[0]:
        return False
    blocks = answers[0]["content"]
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    return "<summary>" in text and not any(b.get("type") == "tool_use" for b in blocks)


def sidechain_kind(agent: str | None, entries: list[Entry], messages: list[dict[str, Any]],
                   types: dict[str, str]) -> Kind:
    """The kind of the sidechain ``agent`` whose lines are ``entries`` (history
    ``messages``); ``types`` is ``agent_types`` of its whole session."""
    prompts = [str(b.get("text", "")) for e in entries
               if e.type == "user" and not e.data.get("isMeta")
               for b in _blocks(e) if b.get("type") == "text" and str(b.get("text", "")).strip()]
    wanted = types.get(agent) if agent else None
    if agent and agent.startswith(COMPACTION_AGENT):
        return Kind("compaction", wanted, f"agentId {agent}")
    if any(SUMMARY_REQUEST in p for p in prompts):
        return Kind("compaction", wanted, "its prompt asks for a summary of the conversation")
    if is_compaction_call(messages):
        return Kind("compaction", wanted, "its one answer is a <summary>")
    if prompts and all(p.strip() == WARMUP for p in prompts):
        return Kind("warmup", wanted, "its only prompt is Warmup")
    if wanted is not None:
        return Kind("explore" if wanted.casefold() == "explore" else "task", wanted,
                    f"the session's call with subagent_type {wanted}")
    return Kind("task", None, "no call in the files given names this sub-agent")
