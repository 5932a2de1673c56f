"""Below the trigger: microcompact's cache-aware batches (§4.6, §6.5, §6.7–6.8, §7.4).

Before the summary trigger the pipeline clears in batches, from the first request on: a batch
runs when it repays the cached prefix it rewrites and the chance that the agent fetches what
it clears again (``batch``), or past the band's upper edge whatever the cache says (§4.6).
Early batches are the cheap ones: a result cleared soon after the agent saw it has little
history behind it to rewrite. Before a result is cleared it is saved to disk, so its
placeholder can name the file (§7.4), and the pipeline's ledger freezes the decision (§6.9).
A result the agent fetched again is evidence that it needs more than the newest results: one
more is kept per fetch again (``refetch``), and a saved copy it read back stays until its next
change (``recovered``). ``BandClearing`` is the part of ``Pipeline`` that
does this; it uses the pipeline's state (the ledger, the calibration, whether the cache is
cold).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from s3_offload.layer import result_text
from s3_offload.store import OFFLOAD_DIR, SAFE_ID, offload
from s4_summarize.rebuild import tool_uses

from ctxlab import models
from ctxlab.session import Session
from ctxlab.tokens import block_text

from .anchor import find_anchor
from .batch import Batch, refetch_chance
from .microcompact import NON_DISCARDABLE, microcompact, result_ids, task_terms
from .refetch import fetched_again
from .thresholds import Thresholds

Messages = list[dict[str, Any]]


class BandClearing:
    """Microcompact as batches below the trigger, for ``Pipeline``."""

    def clear_batch(self, messages: Messages, session: Session, size: int,
                    limits: Thresholds) -> tuple[Messages, int]:
        """Below the trigger: microcompact's batch, run when it repays the prefix it rewrites
        and the expected fetch again (§6.5, §7.4, with the cache certainly cold or not, §6.8)
        or when the size is past the band's upper edge (§4.6); otherwise the history as it
        is. Without the band (``band=False``) nothing is cleared below the trigger."""
        if not self.band or not cacheable(size, limits, session.model):
            return messages, size
        after, decisions = self._microcompact(messages, session,
                                              over_band=size > limits.band_high)
        if not decisions:
            return messages, size
        batch = self._batch(messages, after, session)
        prices = models.get(session.model).prices
        cleared = self._cleared(session)
        chance = refetch_chance(len(cleared), len(self._fetched_again(messages, cleared)))
        if size > limits.band_high:
            why = f"{size:,} > band's upper edge {limits.band_high:,}"
        elif batch.repays(prices, requests=_replies(messages), cold=self.cold, refetch=chance):
            why = (f"repays; frees {batch.freed:,}, rewrites {batch.suffix:,}"
                   + (" (cache cold)" if self.cold else ""))
        else:
            return messages, size
        self._keep(messages, decisions, session)
        return self._step("microcompact", messages, after, session, size, why)

    def _batch(self, messages: Messages, after: Messages, session: Session) -> Batch:
        """What the batch from ``messages`` to ``after`` frees and rewrites. The cache keeps
        prefixes at breakpoints only (§6.4): behind the change, the one left where the last
        batch ended (``anchor``), if any and if its prefix is at least the model's cache
        minimum (a shorter one is never cached); else none."""
        first = next(i for i, (a, b) in enumerate(zip(messages, after, strict=True)) if a != b)
        anchor = find_anchor(messages, self._ledger(session).decisions, self.anchor)
        cached = anchor + 1 if anchor is not None and anchor < first else 0
        if cached and self.estimate(messages[:cached]) + self._fixed(session) < models.get(
                session.model).cache_minimum:  # the plain estimate: the same after a resume
            cached = 0
        before = self.estimate(messages[cached:])
        ratio = self.calibration.ratio
        return Batch(freed=round((before - self.estimate(after[cached:])) * ratio),
                     suffix=round(before * ratio))

    def _cleared(self, session: Session) -> list[str]:
        """The ids of the results microcompact cleared, in order."""
        return [i for i, d in self._ledger(session).decisions.items()
                if d.get("layer") == "microcompact"]

    def _microcompact(self, messages: Messages, session: Session, *,
                      over_band: bool) -> tuple[Messages, dict]:
        """Microcompact with this pipeline's settings: its saved files, the task's words that
        tell results apart (``telling_terms``), the results it cleared before, which stay as
        they were frozen (§6.9), one more recent result kept per result the agent fetched
        again (``refetch``), a note attached to a result kept (``changed``), the newest read
        of each file the agent edited kept (its working copy: clearing it only makes the agent
        read the file again before the next edit, §10.1), and a read of a saved copy pointing
        to that copy, not saved again: a copy of a copy would send the agent round a loop
        (§7.4 ②). Below the band's upper edge (``over_band`` False) the saved copies the
        agent read back since its last change are kept too (``recovered``)."""
        cleared = self._cleared(session)
        results = result_ids(messages)
        if set(results[:max(0, len(results) - self.keep[2])]) <= set(cleared):
            return messages, {}  # every older result is cleared already: nothing to look at
        keep = self.keep[2] + len(self._fetched_again(messages, cleared))
        reads = saved_reads(messages)
        exempt = edited_reads(messages) + ([] if over_band else recovered(messages))
        return microcompact(messages, session.tool_names, keep,
                            terms=telling_terms(messages, self.terms or frozenset()),
                            saved_at=lambda i: reads.get(i) or _saved_at(i),
                            cleared=cleared, exempt=exempt, after=self.changed_files.attached)

    def _fetched_again(self, messages: Messages, cleared: list[str]) -> list[str]:
        """``fetched_again``, once per history: the look and the batch's arithmetic both ask."""
        last = getattr(self, "_fetched", None)
        if last is None or last[0] is not messages or last[1] != cleared:
            self._fetched = (messages, list(cleared), fetched_again(messages, cleared))
        return self._fetched[2]

    def _keep(self, messages: Messages, decisions: dict[str, str], session: Session) -> None:
        """Save each result whose placeholder names a new file, then freeze the decisions."""
        for message in messages:
            for block in message["content"] if isinstance(message["content"], list) else []:
                ident = block.get("tool_use_id")
                if ident in decisions and _saved_at(ident) in decisions[ident]:
                    offload(session.workspace, ident, result_text(block))
        for tool_use_id, content in decisions.items():
            self._ledger(session).record(tool_use_id, content, "microcompact")


def cacheable(size: int, limits: Thresholds, model: str) -> bool:
    """Whether a batch can repay on a request of ``size`` tokens: one at or over the model's
    cache minimum (a shorter prefix is never cached, so a rewrite saves no cache reads,
    §6.4), or past the band's upper edge, where it clears whatever the cache says (§4.6)."""
    return size >= models.get(model).cache_minimum or size > limits.band_high


def telling_terms(messages: Messages, terms: frozenset[str]) -> frozenset[str]:
    """The task's terms that tell one result from another: those found in at most half of the
    results in view (a term in most of them, a word like "then", says nothing about any one;
    ``matching_lines`` applies the same rule to the lines of one result, §7.4)."""
    texts = [result_text(b) for m in messages if isinstance(m["content"], list)
             for b in m["content"] if b.get("type") == "tool_result"]
    found = Counter(t for text in texts for t in _words(text) & terms)
    return frozenset(t for t in terms if found[t] <= len(texts) / 2)


_words = lru_cache(maxsize=4096)(task_terms)  # a result's words, each text read once


def edited_reads(messages: Messages) -> list[str]:
    """The newest read of each file the agent has edited: its working copy (§10.1)."""
    uses = tool_uses(messages)
    edited = {(b.get("input") or {}).get("path") for b in uses if b.get("name") == "edit_file"}
    newest = {(b.get("input") or {}).get("path"): b["id"] for b in uses
              if b.get("name") == "read_file" and (b.get("input") or {}).get("path") in edited}
    return list(newest.values())


def recovered(messages: Messages) -> list[str]:
    """The reads of a saved copy since the agent's newest edit or write (§7.4, §3.2). The
    agent reads a cleared result back because its next change needs it; cleared again before
    that change, it is read back again: the recover-and-clear loop. Once the agent has made
    a change, the copy has served, and it may be cleared like any other result."""
    uses = tool_uses(messages)
    changed = max((i for i, b in enumerate(uses) if b.get("name") in NON_DISCARDABLE),
                  default=-1)
    return [b["id"] for b in uses[changed + 1:] if _saved_copy(b)]


def saved_reads(messages: Messages) -> dict[str, str]:
    """The reads of a saved copy (a path inside the offload folder): id → that path."""
    return {b["id"]: path for b in tool_uses(messages) if (path := _saved_copy(b))}


def _saved_copy(use: dict[str, Any]) -> str | None:
    """The saved copy a tool call reads (a ``read_file`` of a path inside the offload
    folder), or None."""
    path = str((use.get("input") or {}).get("path", ""))
    return path if use.get("name") == "read_file" and path.startswith(
        OFFLOAD_DIR.as_posix()) else None


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
