"""Explain the API error that ended a run, and which stage fixes it (§14 pitfall ladder).

Each pitfall of the ladder surfaces as an API error first: stage 1 overflows the window
(``prompt is too long``), naive truncation in stage 2 orphans a ``tool_result`` (§9.2).
"""

from __future__ import annotations

import re

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

PROMPT_TOO_LONG = re.compile(r"prompt is too long:\s*([\d,]+)\s*tokens\s*>\s*([\d,]+)\s*maximum")
ORPHAN_TOOL_RESULT = re.compile(r"`tool_result` block|without `tool_result` blocks")
TRANSIENT = ("rate_limit", "ratelimit", "overloaded", "api_error", "timeout", "connection")


def parse_prompt_too_long(message: str) -> tuple[int, int] | None:
    """``(sent, window)`` from a ``prompt is too long: N tokens > W maximum`` message."""
    match = PROMPT_TOO_LONG.search(message)
    if match is None:
        return None
    sent, window = (int(g.replace(",", "")) for g in match.groups())
    return sent, window


def _overflow(sent: int, window: int) -> list[RenderableType]:
    over = sent - window
    return [
        Text("The context overflowed the model's window: the request was rejected before the "
             "model saw it."),
        Text(f"sent {sent:,} tokens > window {window:,} tokens "
             f"(over by {over:,}, {over / window:.1%})", style="bold"),
        Text("Fix: stage 2 (s2_truncate) cuts old rounds before each request, only at API "
             "round boundaries; see notebooks/02_truncate.ipynb."),
    ]


def explain_error(error_type: str, message: str) -> RenderableType:
    """A panel saying what went wrong, in plain words, and where the fix is taught."""
    kind = error_type.lower()
    too_long = parse_prompt_too_long(message)
    if too_long is not None:
        lines, title = _overflow(*too_long), "context overflow"
    elif ORPHAN_TOOL_RESULT.search(message):
        title = "broken tool_use / tool_result pairing"
        lines = [
            Text("A tool_result lost its tool_use (or the reverse): the history was cut "
                 "between the two halves of one API round (§9.2)."),
            Text("Fix: cut only where an assistant response starts, and check every request "
                 "with assert_messages_valid (stage 2, s2_truncate)."),
        ]
    elif any(word in kind for word in TRANSIENT):
        title = "transient API error"
        lines = [Text("This error is transient: the SDK retries it with backoff. The run "
                      "ended because every retry failed; running it again usually works.")]
    else:
        title, lines = "API error", []
    details = Text(f"{error_type}: {message}", style="dim")
    return Panel(Group(*lines, details), title=title, border_style="red", expand=False)


def reason(message: str) -> str:
    """The error's words before its figures (``prompt is too long``); a field name alone
    (``messages: at least one message is required``) keeps what follows."""
    head, _, rest = message.partition(":")
    return message.strip() if " " not in head and rest else head
