# Generated from solutions/s5_pipeline/pipeline.py — your exercise: edit it.
# `ctxlab workbook reset 5` regenerates it (your version is backed up first).
"""Exercise 5.5 — the pipeline: cheap layers first, re-measure after each (§7.2, §7.3, ch8.1).

L3 offload runs as results arrive (``admit``), so nothing is cleared before it is on disk.
Before each request (``prepare``): measure; above the trigger, run snip, then microcompact,
re-measuring after each and stopping as soon as the target is met; only if the cheap layers
were not enough, the LLM summary. Each layer's real value is that the next one need not run
(§7.3). Above the blocking mark only a local truncation may run, never a model call (§8.5).

Cache-aware (§6.7–6.8): while the cache is warm, clearing waits for the trigger and then
clears in one batch; once the cache is certainly cold (idle past the 5-minute TTL) the
prefix must be written again anyway, so the cheap layers run down to the target right away.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic
from s2_truncate import assert_messages_valid, find_safe_cut
from s3_offload import OffloadLayer

from ctxlab import models
from ctxlab.session import Session
from ctxlab.tokens import block_text

from .anchors import coverage
from .calibration import Calibration
from .constraints import UserTexts
from .estimate import estimate_tokens
from .fallback import LastResort
from .incremental import Prepared
from .ledger import Ledger
from .microcompact import microcompact
from .snip import snip
from .thresholds import SUMMARY_RESERVE, Thresholds, thresholds
from .volatile import place
from .zones import prefix_hash, zoned_system, zoned_tools

Messages = list[dict[str, Any]]
CACHE_TTL_S = 300.0
Summarizer = Callable[[Messages, Session], Messages]


class Pipeline:
    """The stage-5 context layer."""

    def __init__(self, *, summarize: Summarizer, per_result: int = 50_000,
                 per_message: int = 200_000, keep_first: int = 3, keep_last: int = 47,
                 keep_results: int = 3, target_share: float = 0.6,
                 dynamic: str = "", dynamic_zone: str = "dynamic") -> None:
        self.offload = OffloadLayer(per_result=per_result, per_message=per_message)
        self.summarize = summarize
        self.keep = (keep_first, keep_last, keep_results)
        self.target_share = target_share
        self.dynamic = dynamic
        self.dynamic_zone = dynamic_zone  # "static": the volatile context ahead of the boundary
        self.volatile: Any = None
        self.user_texts = UserTexts()
        self.ledger: Ledger | None = None
        self.prefix: str | None = None
        self.last_request_at: float | None = None
        self.prefix_changes = 0
        self.summaries: list[dict[str, Any]] = []  # anchor coverage of each summary
        self.calibration = Calibration()  # the messages' ratio and the unseen part (§9.5)
        self.measured: tuple[Messages, int] | None = None  # (history, estimate), the latest
        self.counted: tuple[Messages, int] | None = None  # (history, the API's count), latest
        self.prepared = Prepared()  # last turn's work on each message, reused

    def _ledger(self, session: Session) -> Ledger:
        if self.ledger is None:
            self.ledger = Ledger(session.workspace)
            self.user_texts.attach(self.ledger)  # the user's texts survive a resume too
        return self.ledger

    def admit(self, results: Messages, session: Session) -> Messages:
        """L3: offload over-budget results; freeze each decision."""
        admitted = self.offload.admit(results, session)
        for before, after in zip(results, admitted, strict=True):
            if after is not before:
                self._ledger(session).record(after["tool_use_id"], after["content"], "offload")
        return admitted

    def _measure(self, messages: Messages, session: Session) -> int:
        """The request's size: the messages' estimate, calibrated, plus the part of the
        request the layer cannot change, as the last usage measured it (§9.5)."""
        return self.calibration.size(self._estimate(messages), self._fixed(session))

    def _count(self, messages: Messages, session: Session) -> int:
        """``_measure`` with the messages counted by the API (``count_tokens`` is free and
        calls no model), so that a layer's "tokens freed" is measured; the estimate when the
        count fails."""
        try:
            counted = session.count(messages)
        except anthropic.APIError:
            self.counted = None
            return self._measure(messages, session)
        self.counted = (messages, counted)
        self.calibration.counted(counted, self._estimate(messages))
        return counted + self.calibration.unseen(self._fixed(session))

    def _estimate(self, messages: Messages) -> int:
        """The plain estimate of the messages alone, kept for the latest history measured."""
        if self.measured is None or self.measured[0] is not messages:
            self.measured = (messages, self.prepared.estimate(messages, None, None))
        return self.measured[1]

    @staticmethod
    def _fixed(session: Session) -> int:
        """The estimate of what the layer sees but never changes: system prompt and tools."""
        return estimate_tokens([], session.system, session.tools)

    def _calibrate(self, session: Session) -> None:
        """Learn what the last request held beyond its messages, once its usage is known."""
        self.calibration.learn(session.last_usage)

    def _observe(self, messages: Messages, session: Session) -> None:
        """Stage 4's file log, when the summarizer keeps one: the rebuild after a summary
        flags a file that changed on disk since the agent saw it (§10.2)."""
        record = getattr(self.summarize, "record", None)
        if record is not None:
            record(messages, session)

    def _zones(self, session: Session) -> None:
        """Sorted tools and a static/dynamic system prompt; check the prefix never moves.
        On the first request, also the last resort for a request rejected as too long."""
        if self.prefix is None:
            session.recover = LastResort(
                session, lambda m: estimate_tokens(m, session.system, session.tools))
            static = "\n".join(b.get("text", "") for b in session.system)
            session.tools = zoned_tools(session.tools)
            session.system = zoned_system(static, self.dynamic)
            self.volatile = place(self.dynamic_zone, static, session)
        if self.volatile is not None:
            session.system = self.volatile.system(self.dynamic)
        current = prefix_hash(session.tools, session.system)
        if self.prefix is not None and current != self.prefix:
            self.prefix_changes += 1
        self.prefix = current

    def prepare(self, messages: Messages, session: Session) -> Messages:
        """The history to send now.

        In order: set up the cache zones (``_zones``); learn from the last usage
        (``_calibrate``); let the summarizer note the files in view (``_observe``); apply the
        frozen decisions (``self.prepared.apply`` with ``self._ledger(session)``:
        ``Ledger.apply``, run only on the messages that are new since the last turn, see
        ``incremental.py``); remember the user's texts
        (``self.user_texts.remember``); compute the thresholds (``thresholds`` with the
        window, ``session.max_tokens`` plus the summary reserve — ``min(SUMMARY_RESERVE, the
        model's max output)`` — as completion buffer, the target share and that reserve);
        measure (``_measure``). A layer acts above ``compact_at``, or above ``target`` when
        the cache is certainly cold (more than ``CACHE_TTL_S`` since the last request, by
        ``session.now()``): before it does, measure again with the API's count
        (``_count``), and decide on that. Above ``blocking_at``: ``_blocking``. Otherwise,
        when a layer acts: ``_compact`` with a trigger text (``"cache cold"`` for the cold
        case). Then record ``session.now()`` as the last request time, set
        ``self.calibration.sent = (session.last_usage, self._estimate(messages))`` and return
        ``self.prepared.mark(messages)`` (``mark_newest``, again run only on what is new).
        """
        raise NotImplementedError("Exercise 5.5 — prepare(): see notebooks/05_pipeline.ipynb")

    def _compact(self, messages: Messages, session: Session, size: int, limits: Thresholds,
                 trigger: str) -> Messages:
        keep_first, keep_last, keep_results = self.keep
        snipped, dropped = snip(messages, keep_first, keep_last)
        if dropped:
            messages, size = self._step("snip", messages, snipped, session, size, trigger)
        if size > limits.target:
            cleared, decisions = microcompact(messages, session.tool_names, keep_results)
            for tool_use_id, content in decisions.items():
                self._ledger(session).record(tool_use_id, content, "microcompact")
            if decisions:
                messages, size = self._step("microcompact", messages, cleared, session, size,
                                            trigger)
        if size > limits.compact_at:
            summarized, layer = self._summary(messages, session)
            if layer == "summary":
                self.summaries.append(self._quality(messages, summarized, session))
            messages, size = self._step(layer, messages, summarized, session, size, trigger)
        return messages

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
              size: int, trigger: str) -> tuple[Messages, int]:
        """Take ``after`` (the user's texts put back, §12.3) and report what it freed, as the
        API counts it; a layer that changed nothing is not reported."""
        if after == before:
            return before, size
        after = self.user_texts.reinject(after)
        assert_messages_valid(after)
        counted = self.counted[1] if self.counted and self.counted[0] is before else None
        now = self._count(after, session)
        freed = counted - self.counted[1] if counted is not None and self.counted else size - now
        session.report(layer, freed, trigger)
        return after, now

    def _blocking(self, messages: Messages, session: Session, size: int,
                  limits: Thresholds) -> Messages:
        """Local, deterministic, no model call: keep the task and the newest rounds that fit
        in the target, beside the part of the request no layer can change."""
        room = limits.target - self.calibration.unseen(self._fixed(session))
        cut = find_safe_cut(messages, round(room / self.calibration.ratio), estimate_tokens)
        kept, _ = self._step("blocking", messages, messages[:1] + messages[cut:], session, size,
                             f"{size:,} > blocking mark {limits.blocking_at:,}")
        return kept
