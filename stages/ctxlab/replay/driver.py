"""Feeding a recorded session to a context layer, turn by turn (guide §14, §9.2, §12.6).

The replay plays the session as if it were happening: each tool result goes through the
layer's ``admit`` as it arrives, and ``prepare`` runs before each request the session made,
with ``session.now()`` at the time the log recorded for it (cache TTLs, §5).
The recorded reply then joins the history — the agent is never called; only a stage-4+
layer's own summary calls reach the (offline) model. After every request and every ``admit``
that changed something, the history is checked against the API rules (``check``); each
request is sized (``measure``) and billed (``bill``); what removed messages held is listed
(``carry``); what the layer wrote to the workspace is collected at the end.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import anthropic
from anthropic.types import Usage

from ctxlab.loss import CHECKSUMS
from ctxlab.marks import SameContentMemo
from ctxlab.permessage import ByObject
from ctxlab.session import ContextLayer

from .bill import Bill
from .carry import what_to_carry
from .check import Checker
from .measure import Sizer, message_tokens, shared_prefix, usage_total
from .report import Event, Point, ReplayReport, Violation
from .session import ReplaySession, replay_session
from .signatures import SignatureBook
from .transcript import Transcript

Messages = list[dict[str, Any]]


class Replay:
    """One replay of ``transcript`` through ``layer`` (None: stage 1, keep everything)."""

    def __init__(self, transcript: Transcript, layer: ContextLayer | None, *, stage: int | str,
                 model: str, model_note: str, workspace: Path,
                 window: int | None = None, window_note: str = "the model's window",
                 billed: set[str] | None = None) -> None:
        self.transcript, self.layer = transcript, layer
        self.billed = set() if billed is None else billed  # message ids whose usage is billed
        self.book = SignatureBook(transcript.messages)
        self.session: ReplaySession = replay_session(model, workspace, window=window,
                                                     book=self.book, observer=self._observe)
        self.report = ReplayReport(transcript.path.name, stage, model, model_note,
                                   self.session.window, transcript.report,
                                   len(transcript.messages), Bill(model),
                                   window_note=window_note)
        self.session.now = self._now
        self.turn = 0
        self.overhead = 0
        self.clock = 0.0
        self.sent: Messages | None = None
        self.offered = 0  # reference tokens of the history handed to ``prepare``
        known = ByObject()  # the history offered and the one kept hold mostly the same objects
        self.same = SameContentMemo()  # the sizers, check, carry and prefix ask of one pair
        self.sizes = {"live": Sizer(known, self.same), "offered": Sizer(known, self.same),
                      "original": Sizer()}
        self.checker = Checker(model=self.session.model, book=self.book, same=self.same)

    def run(self) -> ReplayReport:
        """Replay every message; returns the report."""
        for mid, logged in self.transcript.logged.items():  # once per id in the tree
            if mid not in self.billed:
                self.billed.add(mid)
                self.report.bill.add_recorded(logged.usage, logged.model)
        live: Messages = []
        try:
            for index, message in enumerate(self.transcript.messages):
                if message["role"] == "assistant":
                    recorded = self.transcript.recorded.get(index)
                    if recorded is not None and recorded.at is not None:
                        self.clock = recorded.at
                    live = self._request(live)
                    self._record(live, index, message)
                    live.append(copy.deepcopy(message))
                else:
                    live = self._admit(live, copy.deepcopy(message))
        finally:  # the session holds two of this replay's methods: a reference cycle that
            # only the collector's next full pass would free, with the whole history in it
            self.session.observer, self.session.now = None, time.monotonic
        self.report.final_messages = len(live)
        root = self.session.workspace
        self.report.disk = {p.relative_to(root).as_posix(): p.stat().st_size
                            for p in sorted(root.rglob("*"))
                            if p.is_file() and p != root / CHECKSUMS}  # not the bench's checksums
        return self.report

    def _now(self) -> float:
        """The session's clock: when the request being replayed was made, per the log."""
        return self.clock

    def _observe(self, kind: str, sent: Messages, response: Any,
                 error: BaseException | None) -> None:
        if response is not None:
            self.report.bill.add_summary(response.usage)
        if error is not None:
            self.report.errors.append(f"request {self.turn}: a {kind} call was rejected: "
                                      f"{str(error).splitlines()[0]}")

    def _drain(self, hook: str, measured: int) -> list[Event]:
        fired = [Event(self.turn, hook, e["layer"], e["tokens_freed"], e["trigger"], measured,
                       e.get("freed_error", 0)) for e in self.session.events]
        self.session.events = []
        self.report.events += fired
        return fired

    def _check(self, hook: str, live: Messages) -> None:
        self.report.checks += 1
        problem = self.checker(live)
        if problem is not None:
            self.report.violations.append(Violation(self.turn, hook, problem))

    def _admit(self, live: Messages, message: dict[str, Any]) -> Messages:
        results = [b for b in message["content"] if b.get("type") == "tool_result"]
        if results and self.layer is not None:
            admitted = self.layer.admit(results, self.session)
            rest = [b for b in message["content"] if b.get("type") != "tool_result"]
            given = message
            message = {"role": "user", "content": list(admitted) + rest}
            fired = self._drain("admit", message_tokens(given) - message_tokens(message)
                                if self.session.events else 0)  # measured for an event only
            live.append(message)
            if fired or admitted != results:
                self._check("admit", live)
            return live
        live.append(message)
        return live

    def _request(self, live: Messages) -> Messages:
        self.turn += 1
        self.same.next_turn()
        before = list(live)
        if self.layer is not None:
            try:
                live = self.layer.prepare(live, self.session)
            except anthropic.APIError as error:
                self.report.errors.append(f"request {self.turn}: prepare failed: "
                                          f"{str(error).splitlines()[0]}")
        self.offered = self.sizes["offered"].count(before)
        fired = self._drain("prepare", self.offered - self.sizes["live"].count(live))
        self._check("prepare", live)
        carry = what_to_carry(before, live, turn=self.turn,
                              layers=list(dict.fromkeys(e.layer for e in fired)),
                              same=self.same) \
            if fired else None
        if carry is not None:
            self.report.carry.append(carry)
        return live

    def _record(self, live: Messages, index: int, reply: dict[str, Any]) -> None:
        """Size and bill the request just prepared; tell the session what it produced."""
        original = self.sizes["original"].count(self.transcript.messages[:index])
        usage = self.transcript.usage(index)
        if usage is not None:
            self.overhead = max(0, usage_total(usage) - original)
        tokens = self.sizes["live"].count(live) + self.overhead
        shared = 0 if self.sent is None else self.overhead + self.sizes["live"].count(
            live, shared_prefix(self.sent, live, self.same))
        warm = min(self.overhead, int(usage.get("cache_read_input_tokens") or 0)) \
            if usage is not None and self.sent is None else 0
        output = int(usage["output_tokens"]) if usage and usage.get("output_tokens") else \
            message_tokens(reply)
        self.report.bill.add(tokens, shared, output, warm=warm)
        self.report.points.append(Point(self.turn, len(live), tokens, original + self.overhead,
                                        self.overhead, tokens / self.session.window,
                                        self.offered + self.overhead))
        self.session.last_usage = Usage(input_tokens=tokens, output_tokens=output)
        self.session.tool_names.update({b["id"]: b["name"] for b in reply["content"]
                                        if b.get("type") == "tool_use"})
        self.sent = list(live)
