"""Inside the band: microcompact's cache-aware batches (§4.6, §6.5, §6.7–6.8, §7.4).

From the band's lower edge the pipeline clears in batches rather than waiting for the summary
trigger. A batch runs when it repays the cached prefix it rewrites (``batch``), or past the
band's upper edge whatever the cache says. Before a result is cleared it is saved to disk, so
its placeholder can name the file (§7.4), and the pipeline's ledger freezes the decision (§6.9).
``BandClearing`` is the part of ``Pipeline`` that does this; it uses the pipeline's state (the
ledger, the calibration, whether the cache is cold).
"""

from __future__ import annotations

from typing import Any

from s3_offload.layer import result_text
from s3_offload.store import OFFLOAD_DIR, SAFE_ID, offload

from ctxlab import models
from ctxlab.session import Session
from ctxlab.tokens import block_text

from .anchor import find_anchor
from .batch import Batch
from .microcompact import microcompact
from .thresholds import Thresholds

Messages = list[dict[str, Any]]


class BandClearing:
    """Microcompact as batches in the band, for ``Pipeline``."""

    def clear_batch(self, messages: Messages, session: Session, size: int,
                    limits: Thresholds) -> tuple[Messages, int]:
        """In the band: microcompact's batch, run when it repays the prefix it rewrites
        (§6.5, with the cache certainly cold or not, §6.8) or when the size is past the
        band's upper edge (§4.6); otherwise the history as it is."""
        after, decisions = self._microcompact(messages, session)
        if not decisions:
            return messages, size
        # The cache keeps prefixes at breakpoints only (§6.4): behind the change, the one
        # left where the last batch ended (``anchor``), if any, else none.
        first = next(i for i, (a, b) in enumerate(zip(messages, after, strict=True)) if a != b)
        anchor = find_anchor(messages, self._ledger(session).decisions, self.anchor)
        cached = anchor + 1 if anchor is not None and anchor < first else 0
        before = self.estimate(messages[cached:])
        ratio = self.calibration.ratio
        batch = Batch(freed=round((before - self.estimate(after[cached:])) * ratio),
                      suffix=round(before * ratio))
        prices = models.get(session.model).prices
        if size > limits.band_high:
            why = f"{size:,} > band's upper edge {limits.band_high:,}"
        elif batch.repays(prices, requests=_replies(messages), cold=self.cold):
            why = (f"in the band; frees {batch.freed:,}, rewrites {batch.suffix:,}"
                   + (" (cache cold)" if self.cold else ""))
        else:
            return messages, size
        self._keep(messages, decisions, session)
        return self._step("microcompact", messages, after, session, size, why)

    def _microcompact(self, messages: Messages, session: Session) -> tuple[Messages, dict]:
        """Microcompact with this pipeline's settings: its saved files, the task's words, and
        the results it cleared before, which stay as they were frozen (§6.9)."""
        cleared = [i for i, d in self._ledger(session).decisions.items()
                   if d.get("layer") == "microcompact"]
        return microcompact(messages, session.tool_names, self.keep[2],
                            terms=self.terms or frozenset(), saved_at=_saved_at,
                            cleared=cleared)

    def _keep(self, messages: Messages, decisions: dict[str, str], session: Session) -> None:
        """Save each result whose placeholder names a new file, then freeze the decisions."""
        for message in messages:
            for block in message["content"] if isinstance(message["content"], list) else []:
                ident = block.get("tool_use_id")
                if ident in decisions and _saved_at(ident) in decisions[ident]:
                    offload(session.workspace, ident, result_text(block))
        for tool_use_id, content in decisions.items():
            self._ledger(session).record(tool_use_id, content, "microcompact")


def _replies(messages: Messages) -> int:
    """The requests answered so far, read from the history (so a resumed session counts the
    same): the estimate of those still to come (§6.5)."""
    return sum(m["role"] == "assistant" for m in messages)


def _saved_at(tool_use_id: str) -> str | None:
    """Where microcompact saves a result before clearing it (§7.4), or None for an id that
    cannot be a file name."""
    if not SAFE_ID.fullmatch(tool_use_id):
        return None
    return (OFFLOAD_DIR / f"{tool_use_id}.txt").as_posix()


def task_text(message: dict[str, Any]) -> str:
    """A message's text blocks, joined (the task, in the first one)."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n".join(block_text(b) for b in content if b.get("type") == "text")
