"""Observation masking: the last N tool results in full, older ones a one-line placeholder.

The most common context layer of production coding agents, and the one that needs no library
(guide §7.2 ①, §3.2): SWE-agent's ``LastNObservations`` history processor ("used in the
original paper to elide but the last 5 observations"; its docs configure ``n: 5``) and
OpenHands' ``ObservationMaskingCondenser`` (``attention_window = 5``) keep the agent's
reasoning and calls whole and replace each older observation's content with a placeholder.
Lindenbauer et al. 2025, "The Complexity Trap" (arXiv 2508.21433), found that this halves an
agent's cost at the same solve rate as LLM summaries, with a window of 10 turns tuned for their
agents. Here ``n`` defaults to 5, the setting both projects ship and document; ``--set n=10``
runs the study's.

The placeholder is SWE-agent's: ``Old environment output: (N lines omitted)``. An observation
is a ``tool_result`` (a user's own text is never masked), counted across the whole history, so
a parallel burst of five results counts five. Each request masks what has left the window
since the previous one and reports it once (``session.report``). ``cache=True`` adds stage 5's
cache breakpoints (``CacheOnly``), as SWE-agent pairs the processor with its cache-control one.
"""

from __future__ import annotations

from typing import Any

from ..session import Session
from ..tokens import count_text
from .cache_only import CacheOnly

Messages = list[dict[str, Any]]
N = 5  # SWE-agent's documented ``n`` and OpenHands' default ``attention_window``
PLACEHOLDER = "Old environment output: ({lines} lines omitted)"
NAME = "observation-masking"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))


def placeholder(content: Any) -> str:
    """The one line an older observation becomes: its line count (and images), as SWE-agent
    writes it."""
    line = PLACEHOLDER.format(lines=len(_text(content).splitlines()))
    images = 0 if isinstance(content, str) else sum(
        isinstance(b, dict) and b.get("type") == "image" for b in content)
    return line + (f" ({images} images omitted)" if images else "")


class ObservationMasking:
    """Masks every tool result but the newest ``n`` (§7.2 ①: clearing old tool results)."""

    def __init__(self, n: int = N) -> None:
        if n < 1:
            raise ValueError(f"n must be at least 1, not {n}")
        self.n = n
        self.masked: set[str] = set()  # ids of the results already masked

    def prepare(self, messages: Messages, session: Session) -> Messages:
        ids = [b["tool_use_id"] for m in messages if m["role"] == "user"
               and not isinstance(m["content"], str)
               for b in m["content"] if b.get("type") == "tool_result"]
        old = set(ids[:-self.n]) - self.masked
        out, freed, masked = [], 0, 0
        for message in messages:
            if message["role"] != "user" or isinstance(message["content"], str):
                out.append(message)
                continue
            blocks = []
            for block in message["content"]:
                if block.get("type") == "tool_result" and block["tool_use_id"] in old:
                    line = placeholder(block.get("content", ""))
                    freed += count_text(_text(block.get("content", ""))) - count_text(line)
                    masked += 1
                    self.masked.add(block["tool_use_id"])
                    block = {**block, "content": line}
                blocks.append(block)
            out.append({**message, "content": blocks})
        if masked:
            session.report(NAME, freed, f"{masked} observation(s) older than the last {self.n}")
        return out

    def admit(self, results: Messages, session: Session) -> Messages:
        return results


class CachedMasking(CacheOnly):
    """Observation masking with stage 5's cache breakpoints around it."""

    def __init__(self, n: int = N) -> None:
        super().__init__()
        self.inner = ObservationMasking(n)

    def prepare(self, messages: Messages, session: Session) -> Messages:
        return super().prepare(self.inner.prepare(messages, session), session)


def make_layer(n: int = N, cache: bool = False) -> Any:
    """The ``--layer`` factory: ``ctxlab.peers.masking:make_layer``."""
    return CachedMasking(n) if cache else ObservationMasking(n)
