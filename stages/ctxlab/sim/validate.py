"""Message rules R2, R6–R11, R14–R15 (API notes §2.2, §3, §8).

The real API's order of checks when several rules fail at once is unknown (open question 5);
this simulator checks in this order: first message role, empty text, tool pairing message by
message, prefill, thinking signatures, forced tools with thinking, max_tokens. The window rules
(R12, R13) run later, after server-side edits have been applied.
"""

from __future__ import annotations

from typing import Any

from . import options, thinking, wording
from .errors import invalid
from .schema import Request


def check_messages(req: Request) -> None:
    """Raise the first rule violation in ``req``'s messages, as the API words it."""
    if not req.messages:
        raise invalid(wording.EMPTY_MESSAGES)
    if req.messages[0]["role"] != "user":  # R2
        raise invalid(wording.FIRST_MESSAGE_ROLE)
    _check_text(req)
    _check_pairing(req)
    if req.messages[-1]["role"] == "assistant" and not req.spec.allows_prefill:  # R10
        raise invalid(wording.PREFILL)
    _check_thinking(req)


def _check_text(req: Request) -> None:
    """R6: empty text blocks, with or without cache_control."""
    for i, message in enumerate(req.messages):
        for j, block in enumerate(message["content"]):
            if block.get("type") != "text":
                continue
            text = block["text"]
            if not text and block.get("cache_control"):
                raise invalid(wording.EMPTY_TEXT_CACHED.format(path=req.path(i, j)))
            if not text:
                raise invalid(wording.EMPTY_TEXT)
            if not text.strip():
                raise invalid(wording.WHITESPACE_TEXT)


def _tool_use_ids(message: dict[str, Any]) -> list[str]:
    return [b["id"] for b in message["content"] if b.get("type") == "tool_use"]


def _leading_results(message: dict[str, Any]) -> list[str]:
    ids = []
    for block in message["content"]:
        if block.get("type") != "tool_result":
            break
        ids.append(block["tool_use_id"])
    return ids


def _check_pairing(req: Request) -> None:
    """R7, R8, R9: every tool_use answered at the start of the very next user message."""
    messages = req.messages
    for i, message in enumerate(messages):
        if message["role"] == "user":
            results = [(j, b) for j, b in enumerate(message["content"])
                       if b.get("type") == "tool_result"]
            if not results:
                continue
            previous = _tool_use_ids(messages[i - 1]) if i > 0 else []
            if not previous:  # R7
                raise invalid(wording.RESULT_WITHOUT_USE.format(i=req.index(i)))
            for j, block in results:  # R8
                if block["tool_use_id"] not in previous:
                    raise invalid(wording.UNEXPECTED_TOOL_USE_ID.format(
                        i=req.origin[i][j][0], j=req.origin[i][j][1], id=block["tool_use_id"]))
        else:
            uses = _tool_use_ids(message)
            answered = set(_leading_results(messages[i + 1])) if i + 1 < len(messages) else set()
            missing = [u for u in uses if u not in answered]
            if missing:  # R9
                raise invalid(wording.USE_WITHOUT_RESULT.format(
                    i=req.index(i), ids=", ".join(missing)))


def _check_thinking(req: Request) -> None:
    """R14: thinking blocks of the latest assistant message exactly as the simulator issued."""
    latest = next((i for i in range(len(req.messages) - 1, -1, -1)
                   if req.messages[i]["role"] == "assistant"), None)
    if latest is None:
        return
    blocks = [dict(b, _pos=j) for j, b in enumerate(req.messages[latest]["content"])
              if b.get("type") in ("thinking", "redacted_thinking")]
    found = thinking.problem(blocks)
    if found is None:
        return
    j, kind = found
    ci, cj = req.origin[latest][j]
    text = wording.THINKING_SIGNATURE if kind == "signature" else wording.THINKING_MODIFIED
    raise invalid(text.format(i=ci, j=cj))


def check_options(req: Request) -> None:
    """R11 and R15: output limit, forced tools with thinking, max_tokens 0 combinations."""
    forced = req.tool_choice.get("type") in ("any", "tool")
    enabled = bool(req.thinking) and req.thinking.get("type") == "enabled"
    if enabled and forced:
        raise invalid(wording.THINKING_FORCED_TOOL)
    options.combinations(req.body, req.spec, req.max_tokens)
    if req.max_tokens is None:
        return
    if req.max_tokens > req.spec.max_output:
        raise invalid(wording.MAX_TOKENS_LIMIT.format(
            max_tokens=req.max_tokens, limit=req.spec.max_output, model=req.model))
    if req.max_tokens < 0:
        raise invalid(wording.WRONG_TYPE.format(path="max_tokens",
                                                expected="greater than or equal to 0"))
    if req.max_tokens == 0:  # R15 / API notes §1.10
        clashes = [("stream", req.stream), ("thinking", enabled),
                   ("output_config.format", bool((req.body.get("output_config") or {})
                                                 .get("format"))),
                   ("a forced tool_choice", forced)]
        for what, present in clashes:
            if present:
                raise invalid(wording.MAX_TOKENS_ZERO.format(what=what))


def check_window(req: Request, total: int) -> None:
    """R12 and R13: the prompt against the context window."""
    window = req.spec.context_window
    if total > window:
        raise invalid(wording.PROMPT_TOO_LONG.format(total=total, window=window))
    if (req.max_tokens and req.spec.rejects_overflowing_max_tokens
            and total + req.max_tokens > window):
        raise invalid(wording.INPUT_PLUS_MAX.format(total=total, max_tokens=req.max_tokens,
                                                    window=window))
