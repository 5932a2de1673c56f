"""Request shape checks and normalisation (API notes §3, R3; "bad input" rules of the lab bench).

A client's mistake (missing field, wrong type, unknown block type) becomes a 400 naming the field,
never a 500. The result is a ``Request`` whose messages have list content, consecutive same-role
turns merged (R3), and, for each merged block, the index it had in the client's own array so
error paths point at what the client sent.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from .. import models
from . import betas as beta_header
from . import definitions, fields, images, options, server_tools, wording
from .errors import APIError, invalid

BLOCK_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "text": {"text": str},
    "image": {"source": dict},
    "document": {"source": dict},
    "tool_use": {"id": str, "name": str, "input": dict},
    "tool_result": {"tool_use_id": str},
    "thinking": {"thinking": str, "signature": str},
    "redacted_thinking": {"data": str},
    "compaction": {},
    "server_tool_use": {"id": str, "name": str, "input": dict},
    **{result: {"tool_use_id": str} for result in server_tools.RESULT.values()},
}
MESSAGE_TYPES = tuple(BLOCK_FIELDS)
ROLES = ("user", "assistant")
RESULT_CONTENT_TYPES = ("text", "image", "document")
PLAIN = {kind: tuple(fields.items()) for kind, fields in BLOCK_FIELDS.items()
         if kind not in ("image", "document")}
"""The block types whose every shape check is a required field of one exact type (``_plain``)."""
SOURCE_FIELDS = {"base64": ("media_type", "data"), "url": ("url",), "text": ("data",)}
THINKING_TYPES = ("enabled", "disabled", "adaptive")
TOP_LEVEL = {
    "model", "messages", "max_tokens", "system", "tools", "tool_choice", "thinking", "stream",
    "cache_control", "context_management", "metadata", "temperature", "top_p", "top_k",
    "stop_sequences", "service_tier", "output_config", "speed", "inference_geo", "diagnostics",
    "thread", "output_format", "container", "fallbacks", "fallback_credit_token",
}
CONTEXT_BETAS = ("context-management-2025-06-27", "compact-2026-01-12")
STRUCTURED_BETA = "structured-outputs-"
_TYPE_NAMES = {str: "a valid string", int: "a valid integer", dict: "a valid dictionary",
               list: "a valid list", bool: "a valid boolean"}


@dataclass
class Request:
    """A validated, normalised Messages request."""

    spec: models.ModelSpec
    model: str
    messages: list[dict[str, Any]]
    origin: list[list[tuple[int, int]]]  # origin[i][j] = (client index, client block index)
    system: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    tool_choice: dict[str, Any]
    thinking: dict[str, Any] | None
    max_tokens: int | None
    stream: bool
    cache_control: dict[str, Any] | None
    context_management: dict[str, Any] | None
    betas: frozenset[str]
    body: dict[str, Any] = field(repr=False)

    def index(self, i: int) -> int:
        """The client's own index of merged message ``i``."""
        return self.origin[i][0][0] if self.origin[i] else i

    def path(self, i: int, j: int | None = None) -> str:
        """The client-facing path of merged message ``i`` (block ``j``)."""
        if j is None:
            return f"messages.{self.index(i)}"
        ci, cj = self.origin[i][j]
        return f"messages.{ci}.content.{cj}"


def _expect(value: Any, kind: type | tuple[type, ...], path: str) -> None:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        raise invalid(wording.WRONG_TYPE.format(path=path, expected=_TYPE_NAMES.get(kinds[0],
                                                                                    "valid")))


def _require(obj: dict[str, Any], name: str, kind: type | tuple[type, ...], path: str) -> Any:
    if name not in obj:
        raise invalid(wording.FIELD_REQUIRED.format(path=f"{path}.{name}".lstrip(".")))
    _expect(obj[name], kind, f"{path}.{name}".lstrip("."))
    return obj[name]


def _check_cache_control(value: Any, path: str) -> None:
    """A breakpoint is ``{"type": "ephemeral", "ttl"?: "5m" | "1h"}`` or null (R4–R6, R24)."""
    if value is None:
        return
    _expect(value, dict, path)
    kind = _require(value, "type", str, path)
    if kind != "ephemeral":
        raise invalid(wording.UNKNOWN_TAG.format(path=path, tag=kind, expected="'ephemeral'"))
    if value.get("ttl") is not None and value["ttl"] not in ("5m", "1h"):
        raise invalid(wording.WRONG_TYPE.format(path=f"{path}.ttl", expected="'5m' or '1h'"))


def _check_source(block: dict[str, Any], path: str) -> None:
    """Image and document sources: a tagged object whose payload fields are strings."""
    source = block["source"]
    kind = _require(source, "type", str, f"{path}.source")
    for name in SOURCE_FIELDS.get(kind, ()):
        _require(source, name, str, f"{path}.source")
    if block["type"] == "image":  # the API's paths name the tags: ….tool_result.content.0.image
        tagged = re.sub(r"(content\.\d+)\.content\.", r"\1.tool_result.content.", path)
        images.check_media_type(source, f"{tagged}.image.source")


def _check_block(block: Any, path: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    _expect(block, dict, path)
    kind = _require(block, "type", str, path)
    if kind not in allowed:
        expected = ", ".join(f"'{t}'" for t in allowed)
        raise invalid(wording.UNKNOWN_TAG.format(path=path, tag=kind, expected=expected))
    for name, expected_type in BLOCK_FIELDS.get(kind, {}).items():
        _require(block, name, expected_type, path)
    if kind in ("thinking", "redacted_thinking") and "cache_control" in block:
        raise invalid(wording.EXTRA_INPUT.format(field=f"{path}.cache_control"))
    if "cache_control" in block:
        _check_cache_control(block["cache_control"], f"{path}.cache_control")
    if kind in ("image", "document"):
        _check_source(block, path)
    if kind == "tool_result" and "content" in block:
        content = block["content"]
        _expect(content, (str, list), f"{path}.content")
        if isinstance(content, list):
            for k, sub in enumerate(content):
                _check_block(sub, f"{path}.content.{k}", RESULT_CONTENT_TYPES)
    if kind == "compaction" and block.get("content") is not None:
        _expect(block["content"], str, f"{path}.content")
    return block


def _plain(block: Any, allowed: tuple[str, ...]) -> bool:
    """Whether ``block`` has one of the common shapes that ``_check_block`` passes: an allowed
    type of ``PLAIN`` with its required fields of their exact JSON type, no ``cache_control``
    but a plain breakpoint (``_plain_mark``) outside thinking, a result's content a string or
    plain text blocks. One quick look, without building the error paths; a block it cannot
    vouch for gets the full check, which words the error."""
    if type(block) is not dict:
        return False
    kind = block.get("type")
    if type(kind) is not str or kind not in allowed or kind not in PLAIN:
        return False
    if "cache_control" in block and (kind in ("thinking", "redacted_thinking")
                                     or not _plain_mark(block["cache_control"])):
        return False
    for name, expected in PLAIN[kind]:
        if type(block.get(name)) is not expected:
            return False
    if kind not in ("tool_result", "compaction") or "content" not in block:
        return True
    content = block["content"]
    if type(content) is str:
        return True
    if kind == "compaction":
        return content is None
    return type(content) is list and all(_plain(sub, ("text",)) for sub in content)


def _plain_mark(value: Any) -> bool:
    """Whether ``value`` is a breakpoint ``_check_cache_control`` passes, at a glance:
    ``{"type": "ephemeral"}``, with a ``ttl`` of ``"5m"`` or ``"1h"`` or none."""
    return type(value) is dict and type(value.get("type")) is str and \
        value["type"] == "ephemeral" and (value.get("ttl") is None or (
            type(value["ttl"]) is str and value["ttl"] in ("5m", "1h")))


def _normalise_messages(raw: Any) -> tuple[list[dict[str, Any]], list[list[tuple[int, int]]]]:
    _expect(raw, list, "messages")
    merged: list[dict[str, Any]] = []
    origin: list[list[tuple[int, int]]] = []
    for i, message in enumerate(raw):
        role, blocks = _message(message, i)
        if merged and merged[-1]["role"] == role:  # R3: same-role turns are combined
            merged[-1]["content"].extend(blocks)
            origin[-1].extend((i, j) for j in range(len(blocks)))
        else:
            merged.append({"role": role, "content": blocks})
            origin.append([(i, j) for j in range(len(blocks))])
    return merged, origin


def _message(message: Any, i: int) -> tuple[str, list[dict[str, Any]]]:
    """The role and a new list of the blocks of message ``i``; a message of ``_plain`` blocks
    is taken at a glance, any other is checked field by field."""
    role = message.get("role") if type(message) is dict else None
    if type(role) is str and role in ROLES:
        content = message.get("content")
        if type(content) is list and all(_plain(b, MESSAGE_TYPES) for b in content):
            return role, list(content)
    path = f"messages.{i}"
    _expect(message, dict, path)
    role = _require(message, "role", str, path)
    if role == "system":
        raise invalid(wording.SYSTEM_ROLE)
    if role not in ROLES:
        raise invalid(wording.UNKNOWN_TAG.format(path=f"{path}.role", tag=role,
                                                 expected="'user', 'assistant'"))
    content = _require(message, "content", (str, list), path)
    if isinstance(content, str):
        return role, [{"type": "text", "text": content}]
    return role, [_check_block(b, f"{path}.content.{j}", MESSAGE_TYPES)
                  for j, b in enumerate(content)]


def _system_blocks(raw: Any) -> list[dict[str, Any]]:
    if raw is None:
        return []
    _expect(raw, (str, list), "system")
    if isinstance(raw, str):
        return [{"type": "text", "text": raw}] if raw else []
    return [copy.deepcopy(_check_block(b, f"system.{k}", ("text",))) for k, b in enumerate(raw)]


def _tools(raw: Any) -> list[dict[str, Any]]:
    if raw is None:
        return []
    _expect(raw, list, "tools")
    for k, tool in enumerate(raw):
        _expect(tool, dict, f"tools.{k}")
        _require(tool, "name", str, f"tools.{k}")
        if tool.get("type") is not None and tool["type"] not in server_tools.TYPES:
            raise invalid(wording.UNKNOWN_TAG.format(
                path=f"tools.{k}", tag=tool["type"],
                expected=", ".join(f"'{t}'" for t in server_tools.TYPES)))
        if "type" not in tool or tool.get("type") == "custom":
            _require(tool, "input_schema", dict, f"tools.{k}")
        _check_cache_control(tool.get("cache_control"), f"tools.{k}.cache_control")
    definitions.check_tools(raw)
    return copy.deepcopy(raw)


def _tool_choice(raw: Any, tools: list[dict[str, Any]]) -> dict[str, Any]:
    if raw is None:
        return {"type": "auto" if tools else "none"}
    _expect(raw, dict, "tool_choice")
    kind = _require(raw, "type", str, "tool_choice")
    if kind not in ("auto", "any", "tool", "none"):
        raise invalid(wording.UNKNOWN_TAG.format(path="tool_choice", tag=kind,
                                                 expected="'auto', 'any', 'tool', 'none'"))
    if kind == "tool":
        _require(raw, "name", str, "tool_choice")
    definitions.check_choice(raw, tools)
    return dict(raw)


def parse(body: Any, headers: dict[str, str], *, count_only: bool = False) -> Request:
    """Validate the body's shape and build a ``Request``; raises ``APIError`` on bad input."""
    _expect(body, dict, "body")
    for name in body:
        if name not in TOP_LEVEL:
            raise invalid(wording.EXTRA_INPUT.format(field=name))
    model_id = _require(body, "model", str, "")
    spec = models.lookup(model_id)
    if spec is None:
        raise APIError(404, wording.UNKNOWN_MODEL.format(model=model_id))
    max_tokens = None if count_only else _require(body, "max_tokens", int, "")
    messages, origin = _normalise_messages(_require(body, "messages", list, ""))
    tools = _tools(body.get("tools"))
    thinking = body.get("thinking")
    if thinking is not None:
        _expect(thinking, dict, "thinking")
        kind = _require(thinking, "type", str, "thinking")
        if kind not in THINKING_TYPES:
            raise invalid(wording.UNKNOWN_TAG.format(
                path="thinking", tag=kind, expected=", ".join(f"'{t}'" for t in THINKING_TYPES)))
        if kind == "enabled":
            _require(thinking, "budget_tokens", int, "thinking")
    cache_control = body.get("cache_control")
    _check_cache_control(cache_control, "cache_control")
    output_config = body.get("output_config")
    if output_config is not None:
        _expect(output_config, dict, "output_config")
        if output_config.get("effort") is not None:
            _expect(output_config["effort"], str, "output_config.effort")
        definitions.check_output_format(output_config.get("format"), "output_config.format")
    betas = beta_header.read(headers)
    if "output_format" in body:  # the structured-outputs beta's form of output_config.format
        if not any(b.startswith(STRUCTURED_BETA) for b in betas):
            raise invalid(wording.EXTRA_INPUT.format(field="output_format"))
        definitions.check_output_format(body["output_format"], "output_format")
    options.shape(body, betas)
    fields.check(body, betas)
    management = body.get("context_management")
    if management is not None:
        if not betas & set(CONTEXT_BETAS):  # R27
            raise invalid(wording.EXTRA_INPUT.format(field="context_management"))
        _expect(management, dict, "context_management")
        _expect(management.get("edits", []), list, "context_management.edits")
    stream = body.get("stream", False)
    _expect(stream, bool, "stream")
    return Request(spec=spec, model=model_id, messages=messages, origin=origin,
                   system=_system_blocks(body.get("system")), tools=tools,
                   tool_choice=_tool_choice(body.get("tool_choice"), tools),
                   thinking=thinking, max_tokens=max_tokens, stream=stream,
                   cache_control=cache_control, context_management=management, betas=betas,
                   body=body)
