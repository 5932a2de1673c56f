"""Exercise 5.5 — the pipeline: cheap layers first, re-measure after each (§7.2, §7.3, ch8.1).

L3 offload runs as results arrive (``admit``), so nothing is cleared before it is on disk.
Before each request (``compact``, the exercise): measure; above the trigger, run snip, then
microcompact, re-measuring after each and stopping as soon as the target is met; only if the
cheap layers were not enough, the LLM summary. Each layer's real value is that the next one
need not run (§7.3). Above the blocking mark only a local truncation may run, never a model
call (§8.5).

Below the trigger (§4.6): microcompact clears in batches, each only when what it frees repays
the cached prefix it rewrites and the chance of fetching it again (§6.5, §7.4, ``batch``);
once the cache is certainly cold (idle past the 5-minute TTL, §6.8) the prefix is written
again anyway. So the occupancy stays well below the band; past the band's upper edge it clears
whatever the cache says. A file that changed on disk since the agent saw it is attached again
as soon as that is true (§10.2, ``changed``), not only after a summary.

Around it, ``prepare`` frames every request the same way (cache zones, the last usage, the
frozen decisions, the user's texts, the moving breakpoint). Its per-message steps are plain
functions of the whole history here; ``ctxlab.incremental`` makes them cost only what a
turn adds, without changing what they return.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import anthropic
from s2_truncate import assert_messages_valid, find_safe_cut
from s3_offload import OffloadLayer

from ctxlab import models
from ctxlab.session import Session
from ctxlab.tokens import block_text

from .anchor import MARKS, Marks, holds_cleared, mark_anchor
from .anchors import coverage
from .band import BandClearing, task_text
from .calibration import Calibration
from .changed import LAYER as CHANGED_LAYER
from .changed import ChangedFiles, joined, newest_result, noted
from .constraints import UserTexts
from .estimate import estimate_tokens
from .fallback import LastResort
from .ledger import Ledger
from .microcompact import task_terms
from .snip import snip
from .thresholds import SUMMARY_RESERVE, Thresholds, offload_budgets, thresholds
from .ttl import IDLED, StaticTTL
from .volatile import place
from .zones import mark_newest, prefix_hash, zoned_system, zoned_tools

Messages = list[dict[str, Any]]
CACHE_TTL_S = 300.0
TASK_LOG = "task"  # the session-log name under which the task's words are kept
Summarizer = Callable[[Messages, Session], Messages]


class Pipeline(BandClearing):
    """The stage-5 context layer."""

    prefix_hash = staticmethod(prefix_hash)  # the cache's prefix (the bench gives it a memory)

    def __init__(self, *, summarize: Summarizer, per_result: int | None = None,
                 per_message: int | None = None, keep_first: int = 3, keep_last: int = 47,
                 keep_results: int = 1, target_share: float = 0.6,
                 dynamic: str = "", dynamic_zone: str = "dynamic", band: bool = True,
                 static_ttl: str = "auto") -> None:
        self.offload = OffloadLayer()
        self.budgets = (per_result, per_message)  # None: §2.4's for the window
        self.summarize = summarize
        self.keep = (keep_first, keep_last, keep_results)
        self.band = band  # False: nothing acts below the trigger (to watch §4 happen)
        self.target_share = target_share
        self.dynamic = dynamic
        self.dynamic_zone = dynamic_zone  # "static": the volatile context ahead of the boundary
        self.volatile: Any = None
        self.ttl = StaticTTL(static_ttl)  # 5 minutes until the session idles (``ttl``)
        self.user_texts = UserTexts()
        self.ledger: Ledger | None = None
        self.prefix: str | None = None
        self.last_request_at: float | None = None
        self.cold = False  # the cache is certainly cold for the request being prepared
        self.prefix_changes = 0
        self.summaries: list[dict[str, Any]] = []  # anchor coverage of each summary
        self.calibration = Calibration()  # the messages' ratio and the unseen part (§9.5)
        self.sized: tuple[int, int] = (0, 0)  # the latest size measured and its error band
        self.terms: frozenset[str] | None = None  # the task's words (§7.4's preview)
        self.anchor: int | None = None  # the message where the last batch ended (§6.4)
        self.marks = Marks()  # where a request that ran a batch marked the one before
        self.changed_files = ChangedFiles()  # files named as changed on disk (§10.2)

    def _ledger(self, session: Session) -> Ledger:
        if self.ledger is None:
            self.ledger = Ledger(session.workspace)
            self.user_texts.attach(self.ledger)  # the user's texts survive a resume too
            self.changed_files.attached.update(  # and so do the attachments (§10.2)
                (e["id"], e["text"]) for e in self.ledger.notes(CHANGED_LAYER))
            self.marks.load(self.ledger.notes(MARKS))  # and the marks (``anchor``)
            self.ttl.load(self.ledger.notes(IDLED))  # and the static zone's TTL
        return self.ledger

    def admit(self, results: Messages, session: Session) -> Messages:
        """L3: offload over-budget results; freeze each decision. The budgets are the ones
        given, else §2.4's kept to the window's share (``offload_budgets``)."""
        given, scaled = self.budgets, offload_budgets(session.window)
        self.offload.per_result, self.offload.per_message = (
            scaled[i] if value is None else value for i, value in enumerate(given))
        admitted = self.offload.admit(results, session)
        for before, after in zip(results, admitted, strict=True):
            if after is not before:
                self._ledger(session).record(after["tool_use_id"], after["content"], "offload")
        return admitted

    def prepare(self, messages: Messages, session: Session) -> Messages:
        """The history to send now: the request's frame around the pipeline (``compact``).

        Before it: whether the cache is certainly cold (§6.8), the cache zones (§6.3) with the
        static zone's TTL (``ttl``), the last usage learned (§9.5), the frozen decisions
        applied (§6.9), the files in view noted for the rebuild (§10.2), the user's texts
        remembered (§12.3). After it: the time of this request, the one moving breakpoint on
        the newest message (§6.4) and the one where the last batch ended (``anchor``: a
        request that runs a new batch still marks the old place, to read the prefix cached
        there; the next request marks the new one).
        """
        now = session.now()
        self.cold = self.last_request_at is not None and now - self.last_request_at > CACHE_TTL_S
        self._zones(session)
        request = len(messages)  # the history as the loop holds it: one size per request
        self.calibration.learn(session.last_usage)
        messages = self.apply_decisions(messages, self._ledger(session))
        self.observe(messages, session)
        messages = self._say_changed(messages, session)
        self.user_texts.remember(messages)
        if self.terms is None:
            self.terms = task_terms(self._task(messages, session))
        messages = self.compact(messages, session)
        self.last_request_at = now
        self.calibration.sent = (session.last_usage, self.estimate(messages))
        decisions = self._ledger(session).decisions
        settled = self.anchor  # where the cached prefix the last batch left ends
        self.anchor = self._anchor(messages, session)
        keep = settled is not None and settled < len(messages) and holds_cleared(
            messages[settled], decisions)
        marked = self.marks.frozen(request, settled if keep else self.anchor, self.anchor,
                                   self._ledger(session).note, messages, decisions)
        return mark_anchor(self.mark(messages), marked)

    def _task(self, messages: Messages, session: Session) -> str:
        """The task's text, as the first request showed it: kept in the session log, so a
        resumed session (whose history starts with a summary) reads the same words (§7.4)."""
        ledger = self._ledger(session)
        said = [e["text"] for e in ledger.notes(TASK_LOG) if isinstance(e.get("text"), str)]
        if said:
            return said[0]
        text = task_text(messages[0]) if messages else ""
        ledger.note(TASK_LOG, {"text": text})
        return text

    def compact(self, messages: Messages, session: Session) -> Messages:
        """The pipeline (§7.2): the history after the layers this request needs.

        Measure (``self.measure``: the last usage plus the calibrated estimate of what was
        added since, counted by the API only where that is too uncertain to decide on). Above
        ``blocking_at``: ``self.blocking``, and nothing else. Above ``compact_at``
        (``self.trigger`` says why): the cheap layers first, ``"snip"`` then
        ``"microcompact"``, each only if the size is above ``target``; then ``"summary"``,
        only if the size is still above ``compact_at``. Run a layer with ``self.run_layer``:
        it returns the history and its size re-measured, which the next decision uses.
        Otherwise: ``self.clear_batch`` (§4.6, §6.5: microcompact's batch, when it pays). The
        thresholds: ``self.limits(session)``.
        """
        ### BEGIN SOLUTION 5.5
        limits = self.limits(session)
        size = self.measure(messages, session)
        if size > limits.blocking_at:
            return self.blocking(messages, session, size, limits)
        trigger = self.trigger(size, limits)
        if trigger is not None:
            for layer in ("snip", "microcompact"):
                if size > limits.target:
                    messages, size = self.run_layer(layer, messages, session, size, trigger)
            if size > limits.compact_at:
                messages, size = self.run_layer("summary", messages, session, size, trigger)
        else:
            messages, size = self.clear_batch(messages, session, size, limits)
        return messages
        ### END SOLUTION

    def limits(self, session: Session) -> Thresholds:
        """This window's thresholds; the completion buffer holds the reply and the summary's
        reserve, ``min(SUMMARY_RESERVE, the model's max output)`` (§8.1)."""
        reserve = min(SUMMARY_RESERVE, models.get(session.model).max_output)
        limits = thresholds(session.window, session.max_tokens + reserve, self.target_share,
                            reserve)
        if self.band:
            return limits
        return replace(limits, band_low=limits.compact_at, band_high=limits.compact_at)

    @staticmethod
    def trigger(size: int, limits: Thresholds) -> str | None:
        """Why the whole pipeline must act on a request of ``size`` tokens, or None."""
        return f"{size:,} > {limits.compact_at:,} tokens" if size > limits.compact_at else None

    def measure(self, messages: Messages, session: Session,
                edges: tuple[int, ...] | None = None) -> int:
        """The request's size as Claude Code knows it (§9.5): the last reported usage plus
        the calibrated estimate of what changed since (``calibration``). Counted by the API
        (``self.count``) only when one of ``edges`` lies inside the estimate's error band, so
        that the estimate could fall on the wrong side of it; ``edges`` default to the
        thresholds that decide what a request does whichever batch it may run (the trigger,
        the blocking mark; the band's upper edge decides only between two batches, and
        ``clear_batch`` counts for it only where they differ)."""
        if edges is None:
            limits = self.limits(session)
            edges = (limits.compact_at, limits.blocking_at)
        estimate, fixed = self.estimate(messages), self._fixed(session)
        self.sized = (self.calibration.size(estimate, fixed),
                      self.calibration.error(estimate, fixed))
        if self.uncertain(edges):
            return self.count(messages, session)
        return self.sized[0]

    def uncertain(self, edges: tuple[int, ...]) -> bool:
        """Whether one of ``edges`` lies inside the error band of the latest size measured
        (``sized``): the estimate could be on the wrong side of it."""
        size, error = self.sized
        return any(size - error <= edge < size + error for edge in edges)

    def count(self, messages: Messages, session: Session) -> int:
        """The request's size with the messages counted by the API (``count_tokens`` is free
        and calls no model); the estimate when the count fails."""
        estimate, fixed = self.estimate(messages), self._fixed(session)
        try:
            counted = session.count(messages)
        except anthropic.APIError:
            self.sized = (self.calibration.size(estimate, fixed),
                          self.calibration.error(estimate, fixed))
            return self.sized[0]
        self.calibration.counted(counted, estimate)
        self.sized = (counted + self.calibration.unseen(fixed), 0)
        return self.sized[0]

    @staticmethod
    def _fixed(session: Session) -> int:
        """The estimate of what the layer sees but never changes: system prompt and tools."""
        return estimate_tokens([], session.system, session.tools)

    # The per-message work of a turn, as functions of the whole history. ``ctxlab.incremental``
    # replaces them with versions that redo only the messages new since the last turn (and
    # take a part's estimate from the running sum).

    def apply_decisions(self, messages: Messages, ledger: Ledger) -> Messages:
        """The history with every frozen decision applied (§6.9)."""
        return ledger.apply(messages)

    def estimate(self, messages: Messages) -> int:
        """The plain estimate of the messages alone (§9.5)."""
        return estimate_tokens(messages)

    def check(self, messages: Messages) -> None:
        """Raise ``InvalidHistory`` when ``messages``, a layer's output, break an API rule: it
        is checked before it is sent (§9.2)."""
        assert_messages_valid(messages)

    def estimate_part(self, messages: Messages, start: int, stop: int | None = None) -> int:
        """The plain estimate of ``messages[start:stop]``."""
        return self.estimate(messages[start:stop])

    def observe(self, messages: Messages, session: Session) -> None:
        """Stage 4's file log, when the summarizer keeps one: the rebuild after a summary
        flags a file that changed on disk since the agent saw it (§10.2)."""
        record = getattr(self.summarize, "record", None)
        if record is not None:
            record(messages, session)

    def _say_changed(self, messages: Messages, session: Session) -> Messages:
        """The history with the files changed on disk since the agent saw them attached at
        the end of the newest tool result, as a frozen decision (§10.2, ``changed``); not when
        the summarizer keeps no file log or its mtime notes are switched off."""
        files = getattr(self.summarize, "files", None)
        block = newest_result(messages)
        if files is None or not getattr(self.summarize, "mtime_notes", True) or block is None \
                or not isinstance(block.get("content"), str):
            return messages
        attachments = self.changed_files.changed(files.mtimes, session.workspace)
        if not attachments:
            return messages
        ident, ledger = block["tool_use_id"], self._ledger(session)
        self.changed_files.attached[ident] = joined(attachments)
        ledger.note(CHANGED_LAYER, {"id": ident, "text": joined(attachments)})
        ledger.record(ident, noted(block, attachments), CHANGED_LAYER)
        return self.apply_decisions(messages, ledger)

    def mark(self, messages: Messages) -> Messages:
        """The history with its one moving breakpoint on the newest message (§6.4)."""
        return mark_newest(messages)

    def _zones(self, session: Session) -> None:
        """Sorted tools and a static/dynamic system prompt, the static zone on this session's
        TTL (``ttl``); check the prefix never moves while the cache is warm (after an idle it
        is cold anyway: the TTL's switch breaks nothing). On the first request, also the last
        resort for a request rejected as too long."""
        if self.prefix is None:
            session.recover = LastResort(
                session, lambda m: estimate_tokens(m, session.system, session.tools))
            static = "\n".join(b.get("text", "") for b in session.system)
            session.tools = zoned_tools(session.tools)
            session.system = zoned_system(static, self.dynamic)
            self.volatile = place(self.dynamic_zone, static, session)
        if self.volatile is not None:
            session.system = self.volatile.system(self.dynamic)
        self.ttl.apply(session, self._ledger(session).note, cold=self.cold)
        current = self.prefix_hash(session.tools, session.system)
        if self.prefix is not None and current != self.prefix and not self.cold:
            self.prefix_changes += 1
        self.prefix = current

    def run_layer(self, layer: str, messages: Messages, session: Session, size: int,
                  trigger: str) -> tuple[Messages, int]:
        """Run ``layer`` (``"snip"``, ``"microcompact"`` or ``"summary"``) on ``messages`` of
        ``size`` tokens: the history it leaves and that history's size, measured again (near
        the thresholds the next layer's decision uses, counted)."""
        keep_first, keep_last, _ = self.keep
        name, after = layer, messages
        if layer == "snip":
            after, _ = snip(messages, keep_first, keep_last)
        elif layer == "microcompact":
            # the trigger lies at or past the band's upper edge (``thresholds``)
            after, decisions = self._microcompact(messages, session, over_band=True)
            self._keep(messages, decisions, session)
        elif layer == "summary":
            after, name = self._summary(messages, session)
            if name == "summary":
                self.summaries.append(self._quality(messages, after, session))
        else:
            raise ValueError(f"no layer {layer!r}: snip, microcompact or summary")
        limits = self.limits(session)
        edges = {"snip": (limits.target, limits.compact_at),
                 "microcompact": (limits.compact_at,)}.get(layer, ())
        return self._step(name, messages, after, session, size, trigger, edges)

    def _summary(self, messages: Messages, session: Session) -> tuple[Messages, str]:
        """The summarizer's history and what made it: ``"summary"``, or the name of the
        fallback that ran instead (stage 4's breaker truncates, calling no model)."""
        run = getattr(self.summarize, "run", None)
        if run is None:  # a plain function of (messages, session)
            return self.summarize(messages, session), "summary"
        done = run(messages, session)
        return (messages, "summary") if done is None else (done.messages, done.layer)

    def _quality(self, before: Messages, after: Messages, session: Session) -> dict[str, Any]:
        """Anchor coverage of a summary (§12.5), logged next to the decisions."""
        text = "\n".join(block_text(b) for m in after for b in (
            [m["content"]] if isinstance(m["content"], str) else m["content"]))
        report = coverage(before, text)
        self._ledger(session).note("compact-quality", report)
        return report

    def _step(self, layer: str, before: Messages, after: Messages, session: Session,
              size: int, trigger: str, edges: tuple[int, ...] = ()) -> tuple[Messages, int]:
        """Take ``after`` (the user's texts put back, §12.3) and report what it freed: the
        API's count of the difference when both sizes were counted (one of ``edges``, a
        threshold the next decision uses, inside the error band), else the calibrated
        estimate of it, reported with its error band; a layer that changed nothing is not
        reported."""
        if after == before:
            return before, size
        after = self.user_texts.reinject(after)
        self.check(after)
        self.calibration.changed()
        was = self.sized
        now = self.measure(after, session, edges)
        if self.sized[1] == 0 and was[1] == 0:
            session.report(layer, size - now, trigger)
        else:
            removed = self.estimate(before) - self.estimate(after)
            session.report(layer, round(self.calibration.rate(-removed) * removed), trigger,
                           freed_error=self.calibration.change_error(-removed))
        return after, now

    def blocking(self, messages: Messages, session: Session, size: int,
                 limits: Thresholds) -> Messages:
        """Local, deterministic, no model call: keep the task and the newest rounds that fit
        in the target, beside the part of the request no layer can change (§8.5)."""
        self.count(messages, session)  # the cut converts tokens to the estimate's units
        room = limits.target - self.calibration.unseen(self._fixed(session))
        cut = find_safe_cut(messages, round(room / self.calibration.ratio), estimate_tokens)
        kept, _ = self._step("blocking", messages, messages[:1] + messages[cut:], session, size,
                             f"{size:,} > blocking mark {limits.blocking_at:,}")
        return kept

