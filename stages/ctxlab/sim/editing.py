"""Server-side context editing: ``clear_tool_uses_20250919`` and ``clear_thinking_20251015``
(R27–R31, API notes §5).

Edits rewrite the request's copy of the history before it is counted and cached; the client's
history is not touched. Because the cleared blocks change, every cache entry whose prefix reaches
the first cleared block stops matching (R29) — the documented behaviour, which differs from the
guide's hope that clearing keeps the cache warm (§6.8).
"""

from __future__ import annotations

from typing import Any

from . import wording
from .errors import invalid
from .render import block_tokens
from .schema import Request

CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
COMPACT = "compact_20260112"
KNOWN = (CLEAR_TOOL_USES, CLEAR_THINKING, COMPACT)


# Options of the form {"type": ..., "value": int}, per edit: option -> allowed types.
COUNTERS: dict[str, dict[str, tuple[str, ...]]] = {
    CLEAR_TOOL_USES: {"trigger": ("input_tokens", "tool_uses"), "keep": ("tool_uses",),
                      "clear_at_least": ("input_tokens",)},
    CLEAR_THINKING: {"keep": ("thinking_turns",)},
    COMPACT: {"trigger": ("input_tokens",)},
}
# Other options: option -> (accepted Python types, how the error names them).
PLAIN: dict[str, tuple[tuple[type, ...], str]] = {
    "exclude_tools": ((list,), "a valid list"),
    "clear_tool_inputs": ((bool, list), "a valid boolean or list"),
    "pause_after_compaction": ((bool,), "a valid boolean"),
    "instructions": ((str,), "a valid string"),
}


def _check_options(edit: dict[str, Any], path: str) -> None:
    """Option shapes, so a mistyped option is a 400 naming it, never a crash."""
    for name, kinds in COUNTERS[edit["type"]].items():
        option = edit.get(name)
        if option is None or (edit["type"] == CLEAR_THINKING and option == "all"):
            continue
        where = f"{path}.{name}"
        if not isinstance(option, dict):
            raise invalid(wording.WRONG_TYPE.format(path=where, expected="a valid dictionary"))
        if option.get("type", kinds[0]) not in kinds:
            raise invalid(wording.UNKNOWN_TAG.format(
                path=where, tag=option.get("type"), expected=", ".join(f"'{k}'" for k in kinds)))
        value = option.get("value", 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise invalid(wording.WRONG_TYPE.format(path=f"{where}.value",
                                                    expected="a non-negative integer"))
    for name, (kinds, expected) in PLAIN.items():
        option = edit.get(name)
        ok = isinstance(option, kinds) and (not isinstance(option, list)
                                            or all(isinstance(x, str) for x in option))
        if option is not None and not ok:
            raise invalid(wording.WRONG_TYPE.format(path=f"{path}.{name}", expected=expected))


def edits(req: Request) -> list[dict[str, Any]]:
    """The validated ``context_management.edits`` list (R30: clear_thinking first)."""
    found = list((req.context_management or {}).get("edits", []))
    for i, edit in enumerate(found):
        path = f"context_management.edits.{i}"
        if not isinstance(edit, dict) or edit.get("type") not in KNOWN:
            tag = edit.get("type") if isinstance(edit, dict) else edit
            raise invalid(wording.UNKNOWN_TAG.format(
                path=path, tag=tag, expected=", ".join(f"'{k}'" for k in KNOWN)))
        _check_options(edit, path)
        if edit["type"] == CLEAR_THINKING and i > 0:
            raise invalid(wording.CLEAR_THINKING_FIRST.format(i=i))
    return found


def _value(option: Any, default: Any) -> Any:
    return option.get("value", default) if isinstance(option, dict) else default


def _clear_thinking(req: Request, edit: dict[str, Any]) -> dict[str, Any] | None:
    keep = edit.get("keep")
    turns = [i for i, m in enumerate(req.messages) if m["role"] == "assistant"
             and any(b.get("type") in ("thinking", "redacted_thinking") for b in m["content"])]
    default = len(turns) if req.spec.generation >= 4.6 else 1
    kept = len(turns) if keep == "all" else _value(keep, default)
    cleared_turns = turns[: max(0, len(turns) - kept)]
    freed = 0
    for i in cleared_turns:
        message = req.messages[i]
        keep_idx = [j for j, b in enumerate(message["content"])
                    if b.get("type") not in ("thinking", "redacted_thinking")]
        freed += sum(block_tokens(b) for b in message["content"]
                     if b.get("type") in ("thinking", "redacted_thinking"))
        message["content"] = [message["content"][j] for j in keep_idx]
        req.origin[i] = [req.origin[i][j] for j in keep_idx]
    if not cleared_turns:
        return None
    return {"type": CLEAR_THINKING, "cleared_thinking_turns": len(cleared_turns),
            "cleared_input_tokens": freed}


def _clear_tool_uses(req: Request, edit: dict[str, Any], total: int) -> dict[str, Any] | None:
    trigger = edit.get("trigger") or {"type": "input_tokens", "value": 100_000}
    uses = [(i, b) for i, m in enumerate(req.messages) for b in m["content"]
            if b.get("type") == "tool_use"]
    measured = len(uses) if trigger.get("type") == "tool_uses" else total
    if measured <= trigger.get("value", 100_000):
        return None
    keep = _value(edit.get("keep"), 3)
    exclude = set(edit.get("exclude_tools") or [])
    clear_inputs = edit.get("clear_tool_inputs", False)
    names = {b["id"]: b["name"] for _, b in uses}
    results = [b for m in req.messages for b in m["content"] if b.get("type") == "tool_result"
               and names.get(b["tool_use_id"]) not in exclude]
    targets = [b for b in results[: max(0, len(results) - keep)]
               if b.get("content") != wording.CLEARED_RESULT]
    freed = sum(block_tokens(b) for b in targets)
    replaced = [dict(b, content=wording.CLEARED_RESULT) for b in targets]
    freed -= sum(block_tokens(b) for b in replaced)
    if freed < _value(edit.get("clear_at_least"), 0):
        return None
    cleared_ids = {b["tool_use_id"] for b in targets}
    for message in req.messages:  # new blocks: the request's own may be the caller's
        content = message["content"]
        for j, block in enumerate(content):
            if block.get("type") == "tool_result" and block["tool_use_id"] in cleared_ids:
                content[j] = {**block, "content": wording.CLEARED_RESULT}
                content[j].pop("is_error", None)
            wipe = clear_inputs is True or (isinstance(clear_inputs, list)
                                            and block.get("name") in clear_inputs)
            if block.get("type") == "tool_use" and block["id"] in cleared_ids and wipe:
                content[j] = {**block, "input": {}}
    return {"type": CLEAR_TOOL_USES, "cleared_tool_uses": len(targets),
            "cleared_input_tokens": freed}


def apply(req: Request, total: int) -> list[dict[str, Any]]:
    """Apply the clearing edits in order; returns ``applied_edits`` (R28, R30)."""
    applied = []
    for edit in edits(req):
        if edit["type"] == CLEAR_THINKING:
            result = _clear_thinking(req, edit)
        elif edit["type"] == CLEAR_TOOL_USES:
            result = _clear_tool_uses(req, edit, total)
        else:
            continue
        if result is not None:
            applied.append(result)
    return applied
