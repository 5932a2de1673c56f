"""Tool definitions, ``tool_choice`` and the structured-output schema (API notes §3.6).

The API rejects a request whose definitions it cannot use before it looks at the messages:
a custom tool name outside ``^[a-zA-Z0-9_-]{1,128}$``, two tools with one name, an
``input_schema`` that is not an object schema, combines schemas at its top level or is not
valid JSON Schema (draft 2020-12), a forced ``tool_choice`` naming a tool that is not there.
The schema check here is structural (the keywords' own types), which is what a client's
mistake usually breaks.
"""

from __future__ import annotations

import re
from typing import Any

from . import wording
from .errors import invalid

NAME = re.compile(r"[a-zA-Z0-9_-]+")
NAME_MAX = 128
TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUBSCHEMAS = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
               "propertyNames", "unevaluatedItems", "unevaluatedProperties")
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
           "minContains", "maxContains")
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def _custom(tool: dict[str, Any]) -> bool:
    return "type" not in tool or tool.get("type") in (None, "custom")


def check_tools(tools: list[dict[str, Any]]) -> None:
    """Names, schemas and uniqueness of ``tools`` (already known to be dicts with a name)."""
    for k, tool in enumerate(tools):
        if not _custom(tool):
            continue
        name = tool["name"]
        path = f"tools.{k}.custom"
        if not name:
            raise invalid(wording.TOOL_NAME_SHORT.format(path=path))
        if len(name) > NAME_MAX:
            raise invalid(wording.TOOL_NAME_LONG.format(path=path, limit=NAME_MAX))
        if not NAME.fullmatch(name):
            raise invalid(wording.TOOL_NAME_PATTERN.format(path=path))
        schema = tool["input_schema"]
        if "type" not in schema:
            raise invalid(wording.FIELD_REQUIRED.format(path=f"{path}.input_schema.type"))
        if schema["type"] != "object":
            raise invalid(wording.SCHEMA_NOT_OBJECT.format(path=f"{path}.input_schema"))
        if any(key in schema for key in ("oneOf", "allOf", "anyOf")):
            raise invalid(wording.SCHEMA_TOP_LEVEL_COMBINATOR.format(path=f"{path}.input_schema"))
        if not valid_schema(schema):
            raise invalid(wording.SCHEMA_INVALID.format(path=f"{path}.input_schema"))
    names = [t["name"] for t in tools]
    if len(set(names)) != len(names):
        raise invalid(wording.TOOL_NAMES_UNIQUE)


def check_choice(choice: dict[str, Any], tools: list[dict[str, Any]]) -> None:
    """A forced ``tool_choice`` needs tools, and ``tool`` needs the tool it names."""
    kind = choice.get("type")
    if kind in ("any", "tool") and not tools:
        raise invalid(wording.TOOL_CHOICE_NO_TOOLS)
    if kind == "tool" and choice.get("name") not in {t["name"] for t in tools}:
        raise invalid(wording.TOOL_CHOICE_UNKNOWN.format(name=choice.get("name")))
    flag = choice.get("disable_parallel_tool_use")
    if flag is not None and not isinstance(flag, bool):
        raise invalid(wording.WRONG_TYPE.format(path="tool_choice.disable_parallel_tool_use",
                                                expected="a valid boolean"))


def check_output_format(fmt: Any, path: str) -> None:
    """A structured-output format at ``path``: ``{"type": "json_schema", "schema": {...}}``."""
    if fmt is None:
        return
    if not isinstance(fmt, dict):
        raise invalid(wording.WRONG_TYPE.format(path=path, expected="a valid dictionary"))
    if fmt.get("type") != "json_schema":
        raise invalid(wording.UNKNOWN_TAG.format(path=path, tag=fmt.get("type"),
                                                 expected="'json_schema'"))
    schema = fmt.get("schema")
    if not isinstance(schema, dict):
        raise invalid(wording.FIELD_REQUIRED.format(path=f"{path}.schema") if schema is None
                      else wording.WRONG_TYPE.format(path=f"{path}.schema",
                                                     expected="a valid dictionary"))
    if not valid_schema(schema):
        raise invalid(wording.SCHEMA_INVALID.format(path=f"{path}.schema"))


def valid_schema(schema: Any) -> bool:
    """Whether ``schema`` is structurally a JSON Schema: each keyword holds the right kind of
    value, all the way down (iterative, so a deep schema cannot exhaust the stack)."""
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict) or not _keywords_ok(node):
            return False
        for key in _SUBSCHEMA_MAPS:
            if key in node:
                if not isinstance(node[key], dict):
                    return False
                pending.extend(node[key].values())
        for key in _SUBSCHEMA_LISTS:
            if key in node:
                if not isinstance(node[key], list) or not node[key]:
                    return False
                pending.extend(node[key])
        pending.extend(node[key] for key in _SUBSCHEMAS if key in node)
    return True


def _keywords_ok(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    if not all(isinstance(k, str) and k in TYPES for k in kinds) or (
            isinstance(kind, list) and not kind):
        return False
    required = node.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return False
    if "enum" in node and not isinstance(node["enum"], list):
        return False
    if any(k in node and (not isinstance(node[k], int) or isinstance(node[k], bool)
                          or node[k] < 0) for k in _COUNTS):
        return False
    if any(k in node and (not isinstance(node[k], int | float) or isinstance(node[k], bool))
           for k in _NUMBERS):
        return False
    return all(not (k in node and not isinstance(node[k], str))
               for k in ("$ref", "pattern", "format", "description", "title"))
