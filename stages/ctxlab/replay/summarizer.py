"""The offline model behind a replay: it writes summaries, nothing else (DESIGN §4, §12.4).

A replay uses the recorded replies, so the agent is never called. A stage-4+ layer may still
call the model to summarize (``session.create(kind="summary")``): this responder answers from
the request alone, like every simulated model, with a structured summary — the goal, the files
the calls touched, every user message quoted (head only when long), the tools used and the
last thing the assistant said. Quoted messages of an earlier summary are carried over, so a
second compaction keeps them too.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ctxlab.brain.request import find_request
from ctxlab.sim import ModelView, Reply

from .carry import tool_paths, user_texts

QUOTE_LIMIT = 2_000
_QUOTED = re.compile(r"<user-message>\n(.*?)\n</user-message>", re.S)


def _quote(text: str) -> str:
    if len(text) > QUOTE_LIMIT:
        text = f"{text[:QUOTE_LIMIT]}\n[… {len(text) - QUOTE_LIMIT:,} more characters]"
    return f"<user-message>\n{text}\n</user-message>"


def write_summary(messages: list[dict[str, Any]], request: str | None = None) -> str:
    """A structured summary of ``messages``; ``request`` (the ask to summarize) is left out."""
    said: list[str] = []
    for text in user_texts(messages):
        if text != request:
            said += _QUOTED.findall(text) or [text]
    calls = [b for m in messages if m["role"] == "assistant" for b in m["content"]
             if b.get("type") == "tool_use"]
    files = list(dict.fromkeys(p for b in calls for p in tool_paths(b)))
    tools = Counter(b["name"] for b in calls)
    last = next((b["text"] for m in reversed(messages) if m["role"] == "assistant"
                 for b in m["content"] if b.get("type") == "text"), "(nothing yet)")
    sections = [
        "## Goal\n" + (said[0][:QUOTE_LIMIT] if said else "(no user text in view)"),
        "## Files touched\n" + ("\n".join(f"- {f}" for f in files) or "- none"),
        "## All user messages\n" + "\n".join(_quote(t) for t in dict.fromkeys(said)),
        "## Tools used\n" + (", ".join(f"{n} ×{c}" for n, c in tools.most_common()) or "none"),
        "## Current work\n" + last[:QUOTE_LIMIT],
    ]
    return "<summary>\n" + "\n\n".join(sections) + "\n</summary>"


class ReplaySummarizer:
    """A ``Responder`` that answers every request with ``write_summary`` of what it sees."""

    def respond(self, view: ModelView) -> Reply:
        return Reply([{"type": "text", "text": self.summarize(view, None)}])

    def summarize(self, view: ModelView, instructions: str | None) -> str:
        request = find_request(view)
        return write_summary(view.messages, request.text if request else None)
