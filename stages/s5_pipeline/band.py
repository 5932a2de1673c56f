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
cold) and reads the history through ``HistoryReads`` (``reads``).
"""

from __future__ import annotations

from itertools import compress, count
from operator import is_not, itemgetter
from typing import Any

from s3_offload.layer import result_text
from s3_offload.store import OFFLOAD_DIR, SAFE_ID, offload

from ctxlab import models
from ctxlab.session import Session
from ctxlab.tokens import block_text

from .anchor import find_anchor
from .batch import Batch, refetch_chance
from .microcompact import microcompact
from .reads import HistoryReads, edited_reads, recovered, telling_terms
from .refetch import fetched_again
from .thresholds import Thresholds

Messages = list[dict[str, Any]]
Chosen = tuple[Messages, dict[str, str], str]  # a batch: the history after it, its decisions, why


class BandClearing(HistoryReads):
    """Microcompact as batches below the trigger, for ``Pipeline``."""

    microcompact = staticmethod(microcompact)  # the band's look (the bench gives it a memory)
    fetched_again = staticmethod(fetched_again)  # and the calls fetched again (a memory too)
    edited_reads = staticmethod(edited_reads)  # and the working copies (a memory too)

    def clear_batch(self, messages: Messages, session: Session, size: int,
                    limits: Thresholds) -> tuple[Messages, int]:
        """Below the trigger: microcompact's batch, run when it repays the prefix it rewrites
        and the expected fetch again (§6.5, §7.4, with the cache certainly cold or not, §6.8)
        or when the size is past the band's upper edge (§4.6); otherwise the history as it
        is. Without the band (``band=False``) nothing is cleared below the trigger. The size
        is known within its error band (``measure``): where the upper edge lies inside it and
        the batch would differ on either side, the request is counted first (§9.5: count only
        where the count decides something)."""
        if not self.band or not cacheable(size, limits, session.model):
            return messages, size
        chosen = self._choose(messages, session, size, limits)
        if self.uncertain((limits.band_high,)) and _decisions(chosen) != _decisions(
                self._choose(messages, session, size, limits, over=size <= limits.band_high)):
            size = self.count(messages, session)
            chosen = self._choose(messages, session, size, limits)
        if chosen is None:
            return messages, size
        after, decisions, why = chosen
        self._keep(messages, decisions, session)
        return self._step("microcompact", messages, after, session, size, why)

    def _choose(self, messages: Messages, session: Session, size: int, limits: Thresholds,
                *, over: bool | None = None) -> Chosen | None:
        """The batch to run on ``messages`` of ``size`` tokens, past the band's upper edge
        (``over``; by ``size`` when not given) or because it repays, and why; None for no
        batch."""
        over = size > limits.band_high if over is None else over
        after, decisions = self._microcompact(messages, session, over_band=over)
        if not decisions:
            return None
        if over:
            return after, decisions, f"{size:,} > band's upper edge {limits.band_high:,}"
        batch = self._batch(messages, after, session)
        prices = models.get(session.model).prices
        cleared = self._cleared(session)
        chance = refetch_chance(len(cleared), len(self._fetched_again(messages, cleared)))
        if not batch.repays(prices, requests=_replies(messages), cold=self.cold,
                            refetch=chance):
            return None
        return after, decisions, (f"repays; frees {batch.freed:,}, rewrites {batch.suffix:,}"
                                  + (" (cache cold)" if self.cold else ""))

    def _batch(self, messages: Messages, after: Messages, session: Session) -> Batch:
        """What the batch from ``messages`` to ``after`` frees and rewrites. The cache keeps
        prefixes at breakpoints only (§6.4): behind the change, the one left where the last
        batch ended (``anchor``), if any and if its prefix is at least the model's cache
        minimum (a shorter one is never cached); else none. What it frees is what the
        messages it changed lose."""
        changed = [i for i in compress(count(), map(is_not, messages, after))
                   if messages[i] != after[i]]  # an equal copy is no change
        anchor = self._anchor(messages, session)
        cached = anchor + 1 if anchor is not None and anchor < changed[0] else 0
        if cached and self.estimate_part(messages, 0, cached) + self._fixed(session) < \
                models.get(session.model).cache_minimum:  # the plain estimate: as on a resume
            cached = 0
        freed = self.estimate([messages[i] for i in changed]) - self.estimate(
            [after[i] for i in changed])
        ratio = self.calibration.ratio
        return Batch(freed=round(freed * ratio),
                     suffix=round(self.estimate_part(messages, cached) * ratio))

    def _anchor(self, messages: Messages, session: Session) -> int | None:
        """Where the last batch ended (``anchor.find_anchor``); None before any batch."""
        if not self._cleared(session):
            return None
        return find_anchor(self.located(messages), self._ledger(session).decisions)

    def _cleared(self, session: Session) -> list[str]:
        """The ids of the results microcompact cleared, in order."""
        return self._ledger(session).decided_by("microcompact")

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
        results = self.results(messages)
        if set(cleared).issuperset(results[:max(0, len(results) - self.keep[2])]):
            return messages, {}  # every older result is cleared already: nothing to look at
        keep = self.keep[2] + len(self._fetched_again(messages, cleared))
        uses, reads = self.uses(messages), dict(self.saved(messages))
        exempt = self.edited_reads(uses) + ([] if over_band or not reads else recovered(uses))
        return self.microcompact(messages, session.tool_names, keep,
                                 terms=telling_terms(self.named(messages), len(results),
                                                     self.terms or frozenset()),
                                 saved_at=lambda i: reads.get(i) or _saved_at(i),
                                 cleared=cleared, exempt=exempt,
                                 after=self.changed_files.attached,
                                 located=self.located(messages))

    def _fetched_again(self, messages: Messages, cleared: list[str]) -> list[str]:
        """``fetched_again``, once per history: the look and the batch's arithmetic both ask."""
        last = getattr(self, "_fetched", None)
        if last is None or last[0] is not messages or last[1] != cleared:
            self._fetched = (messages, list(cleared), self.fetched_again(self.calls(messages),
                                                                         cleared))
        return self._fetched[2]

    def _keep(self, messages: Messages, decisions: dict[str, str], session: Session) -> None:
        """Save each result whose placeholder names a new file, in one batch through the
        ledger's held offload folders (its files and checksums on disk before the decisions
        that name them), then freeze the decisions."""
        ledger = self._ledger(session)
        with ledger.offloads.batch():
            for index in dict.fromkeys(i for i, ident in self.located(messages)
                                       if ident in decisions):
                for block in messages[index]["content"]:
                    ident = block.get("tool_use_id")
                    if ident in decisions and _saved_at(ident) in decisions[ident]:
                        offload(session.workspace, ident, result_text(block))
        ledger.record_all(decisions, "microcompact")


def cacheable(size: int, limits: Thresholds, model: str) -> bool:
    """Whether a batch can repay on a request of ``size`` tokens: one at or over the model's
    cache minimum (a shorter prefix is never cached, so a rewrite saves no cache reads,
    §6.4), or past the band's upper edge, where it clears whatever the cache says (§4.6)."""
    return size >= models.get(model).cache_minimum or size > limits.band_high


def _decisions(chosen: Chosen | None) -> dict[str, str]:
    """What a batch clears (nothing for no batch)."""
    return {} if chosen is None else chosen[1]


def _replies(messages: Messages) -> int:
    """The requests answered so far, read from the history (so a resumed session counts the
    same): the estimate of those still to come (§6.5)."""
    return list(map(itemgetter("role"), messages)).count("assistant")


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
