"""The usage a log recorded, each response once (guide §12.1 total bill; real-transcripts §4.2).

Claude Code repeats a response's usage on every line of it, partial on the early ones, and a
resumed session re-logs whole responses. So a response's usage is the one on the last line
carrying its ``message.id``, and each id counts once, wherever its lines are: before the
compaction boundary a replay starts at, or in another file of the same session. Each is priced
at the model that answered it. Not billed: lines the client wrote itself (``<synthetic>``),
lines with no ``message.id`` (nothing tells their copies apart) and usage with no input.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ctxlab import models

from .lines import Entry


@dataclass(frozen=True)
class Logged:
    """One response's recorded usage and the model that answered it."""

    model: str | None
    usage: dict[str, Any]


def usage_known(usage: dict[str, Any] | None) -> bool:
    """Whether ``usage`` records some input (a real request, not an empty placeholder)."""
    usage = usage or {}
    return any(isinstance(usage.get(k), int) and usage[k] > 0
               for k in ("input_tokens", "cache_read_input_tokens",
                         "cache_creation_input_tokens"))


def logged_usage(entries: Iterable[Entry]) -> dict[str, Logged]:
    """``message.id`` → the usage its last line recorded, over the assistant lines given."""
    found: dict[str, Logged] = {}
    for entry in entries:
        message = entry.data.get("message")
        if entry.type != "assistant" or not isinstance(message, dict):
            continue
        mid, usage, model = message.get("id"), message.get("usage"), message.get("model")
        if model == models.NOT_A_MODEL or not isinstance(mid, str) or not mid \
                or not isinstance(usage, dict) or not usage_known(usage):
            continue
        found[mid] = Logged(model if isinstance(model, str) else None, usage)
    return found
