"""A value that matches a JSON schema, filled from what the model would say (API notes §3.6).

A forced tool call (``tool_choice`` ``any`` or ``tool``) and a structured answer
(``output_config.format``) must both be valid against the schema the client sent, whatever the
responder had in mind. ``instance(schema, texts)`` builds one: every string slot takes the next
sentence of the responder's own reply, so the answer carries what the model can see; numbers,
booleans, enums and formats get the smallest valid value. It is deterministic: the same schema
and texts give the same value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import cycle
from typing import Any

MAX_DEPTH = 8  # recursive schemas ($ref to itself) stop adding optional parts below this
_FORMATS = {
    "date-time": "2026-01-01T00:00:00Z", "date": "2026-01-01", "time": "00:00:00Z",
    "email": "agent@example.com", "uri": "https://example.com/", "uuid":
    "00000000-0000-4000-8000-000000000000", "ipv4": "127.0.0.1", "ipv6": "::1",
    "hostname": "example.com", "duration": "PT1S",
}
_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n+")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.]*\w)")


def sentences(texts: list[str]) -> list[str]:
    """The non-empty sentences of ``texts``, in order."""
    found = [s.strip() for t in texts for s in _SENTENCE.split(t)]
    return [s for s in found if s]


def instance(schema: Any, texts: list[str]) -> Any:
    """A value valid against ``schema`` whose strings and numbers come from ``texts``."""
    pool = cycle(sentences(texts) or ["ok"])
    numbers = [float(n) for t in texts for n in _NUMBER.findall(t)]
    return _Filler(schema if isinstance(schema, dict) else {}, pool, numbers).value(schema, 0)


class _Filler:
    def __init__(self, root: dict[str, Any], pool: Iterator[str], numbers: list[float]) -> None:
        self.root = root
        self.pool = pool
        self.numbers = numbers  # numbers the texts mention, used in order where they fit

    def _resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#"):
            return schema
        target: Any = self.root
        for part in ref.lstrip("#").strip("/").split("/"):
            if not part:
                continue
            target = target.get(part.replace("~1", "/").replace("~0", "~"), {}) \
                if isinstance(target, dict) else {}
        merged = dict(target) if isinstance(target, dict) else {}
        merged.update({k: v for k, v in schema.items() if k != "$ref"})
        return merged

    def value(self, schema: Any, depth: int) -> Any:
        if not isinstance(schema, dict):
            return self._text({})
        schema = self._resolve(schema)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return schema["enum"][0]
        for key in ("anyOf", "oneOf"):
            options = [o for o in schema.get(key) or [] if isinstance(o, dict)]
            if options:
                chosen = next((o for o in options if self._resolve(o).get("type") != "null"),
                              options[0])
                return self.value(chosen, depth + 1)
        if isinstance(schema.get("allOf"), list):
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                part = self._resolve(part) if isinstance(part, dict) else {}
                for key, val in part.items():
                    if key in ("properties",) and isinstance(val, dict):
                        merged.setdefault("properties", {}).update(val)
                    elif key == "required" and isinstance(val, list):
                        merged["required"] = list(merged.get("required", [])) + val
                    else:
                        merged.setdefault(key, val)
            return self.value(merged, depth + 1)
        return self._typed(schema, _kind(schema), depth)

    def _typed(self, schema: dict[str, Any], kind: str, depth: int) -> Any:
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, depth)
        if kind in ("integer", "number"):
            return self._number(schema, kind)
        if kind == "boolean":
            return True
        if kind == "null":
            return None
        return self._text(schema)

    def _object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [r for r in schema.get("required") or [] if isinstance(r, str)]
        names = list(props) if depth < MAX_DEPTH else [r for r in required if r in props]
        out = {name: self.value(props[name], depth + 1) for name in names}
        for name in required:  # required but not described: any string will do
            out.setdefault(name, self._text({}))
        return out

    def _array(self, schema: dict[str, Any], depth: int) -> list[Any]:
        low = schema.get("minItems", 0)
        high = schema.get("maxItems")
        count = max(low if isinstance(low, int) else 0, 1 if depth < MAX_DEPTH else 0)
        if isinstance(high, int):
            count = min(count, high)
        prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
        items = [self.value(p, depth + 1) for p in prefix[:max(count, len(prefix))]]
        while len(items) < count:
            items.append(self.value(schema.get("items", {}), depth + 1))
        return items

    def _text(self, schema: dict[str, Any]) -> str:
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:
            return _FORMATS[fmt]
        text = next(self.pool)
        low, high = schema.get("minLength"), schema.get("maxLength")
        if isinstance(high, int):
            text = text[:high]
        if isinstance(low, int) and len(text) < low:
            text = text + "." * (low - len(text))
        return text

    def _number(self, schema: dict[str, Any], kind: str) -> int | float:
        while self.numbers:
            candidate = self.numbers.pop(0)
            if (kind == "number" or candidate.is_integer()) and _fits(schema, candidate):
                return int(candidate) if kind == "integer" else candidate
        return _smallest(schema, kind)


def _kind(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else "string")
    if isinstance(kind, str):
        return kind
    if "properties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    return "string"


def _fits(schema: dict[str, Any], value: float) -> bool:
    checks = (("minimum", lambda b: value >= b), ("maximum", lambda b: value <= b),
              ("exclusiveMinimum", lambda b: value > b), ("exclusiveMaximum", lambda b: value < b),
              ("multipleOf", lambda b: b > 0 and (value / b).is_integer()))
    return all(not _numeric(schema.get(k)) or ok(schema[k]) for k, ok in checks)


def _numeric(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _smallest(schema: dict[str, Any], kind: str) -> int | float:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value: float = 0
    if isinstance(low, int | float) and not isinstance(low, bool):
        value = low + (1 if "minimum" not in schema else 0)
    elif isinstance(high, int | float) and not isinstance(high, bool) and high < 0:
        value = high - (1 if "maximum" not in schema else 0)
    step = schema.get("multipleOf")
    if isinstance(step, int | float) and step > 0:
        value = -(-value // step) * step
    return int(value) if kind == "integer" else float(value)
