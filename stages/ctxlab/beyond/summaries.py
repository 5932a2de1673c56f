"""Which summary keeps what matters? Probes after each kind of compaction (guide §12.4–§12.5).

One history, several ways to compact it, the same probes after each:

1. The history: the scenario run with no context layer on a large window, stopped right after
   step ``after`` (by default the step before the last, so that the decisions are taken).
2. The contexts: ``full`` (nothing compacted: the control, which must score 1.0),
   ``free-form`` and ``structured`` (stage 4's summarizer with each template), ``stage-5``
   (the stage-5 pipeline forced to write a summary: snip and microcompact switched off, as in
   the acceptance drill) and ``server-compaction`` (the API's ``compact_20260112``, on a model
   that offers it, when the history reaches the 50,000-token minimum trigger, R32).
3. Each client-side variant compacts as if the window were ``window`` tokens (by default the
   history plus ``HEADROOM``), so that every one of them has to act; all calls go to the same
   simulated model on a large-window model id, so no request is ever too long.
4. The probes are asked of the same simulated model, after each context, and scored against
   the ground truth of the history (``probes``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import scenarios
from ..brain import Brain
from ..report.compare import LARGE_WINDOW_MODEL
from ..runner import SYSTEM, load_stage
from ..server_edits import COMPACT, BetaSession, ServerEdits, beta_client
from ..session import Session
from ..sim import Simulator, make_client
from ..tokens import count_messages
from ..tools import ToolBox, definitions
from .probes import KINDS, Probe, ground_truth, make_probes, parse_answers, score, with_request

Messages = list[dict[str, Any]]
HEADROOM = 15_000
"""The client-side variants compact as if the window were the history plus this much: past
stage 5's compaction trigger (33,000 below the window), short of its blocking mark (3,000
below), so the pipeline writes a summary rather than cutting locally (§8.5)."""
VARIANTS = ("full", "free-form", "structured", "stage-5", "stage-5-pipeline",
            "server-compaction")
MIN_TRIGGER = 50_000  # R32: the smallest trigger compact_20260112 accepts


@dataclass
class BudgetSession(BetaSession):
    """A session whose context layer budgets ``budget`` tokens instead of the model's window
    (the API still enforces the real one)."""

    budget: int = 0

    @property
    def window(self) -> int:  # type: ignore[override]
        return self.budget or super().window


@dataclass
class Outcome:
    """One variant's context and its answers."""

    variant: str
    context_tokens: int | None
    answers: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    note: str = ""


def _session(plan: scenarios.Scenario, root: Any, model: str, *, budget: int = 0,
             server: ServerEdits | None = None, seed: int = 0) -> BudgetSession:
    client = make_client(Simulator(responder=Brain(plan, seed=seed)))
    server = server or ServerEdits()
    return BudgetSession(beta_client(client, server), model,
                         [{"type": "text", "text": SYSTEM}], definitions(), root,
                         server=server, budget=budget)


def history_at(plan: scenarios.Scenario, session: Session, toolbox: ToolBox,
               after: str) -> Messages:
    """The keep-everything conversation, stopped once step ``after`` has been taken."""
    first = load_stage(1)
    target = plan.steps[plan.index(after)]
    follow = scenarios.FollowUps(plan)
    messages: Messages = [scenarios.opening(plan)]
    for _ in range(3 * len(plan.steps) + 20):
        messages = first.run_loop(session, messages, toolbox, follow_ups=follow, max_turns=1)
        if ground_truth(plan, messages).taken.get(plan.index(after)) in target.calls:
            return messages
    raise ValueError(f"the run never took step {after!r}")


def _client_side(variant: str, history: Messages, session: Session) -> Messages:
    if variant == "full":
        return history
    if variant in ("free-form", "structured"):
        return load_stage(4).summarizer(template=variant)(history, session)
    options = {"keep_last": 10_000, "keep_results": 10_000} if variant == "stage-5" else {}
    return load_stage(5).make_layer(**options).prepare(history, session)


def _server_side(history: Messages, session: Session) -> Messages:
    """Let the API compact (pause after compaction, R34) and continue from its block."""
    response = session.create(history)
    blocks = [b.model_dump(exclude_none=True) for b in response.content]
    return [*history, {"role": "assistant", "content": blocks}]


def _ask(session: Session, context: Messages, probes: list[Probe]) -> list[str]:
    response = session.create(with_request(context, probes), kind="summary",
                              tool_choice={"type": "none"}, max_tokens=2_000)
    text = "".join(b.text for b in response.content if b.type == "text")
    return parse_answers(text, len(probes))


def compare_summaries(scenario: str, *, after: str | None = None, window: int | None = None,
                      seed: int = 0, variants: tuple[str, ...] = VARIANTS) -> dict[str, Any]:
    """Probe scores of every variant on one history (see the module docstring)."""
    plan = scenarios.load(scenario)
    after = after or plan.steps[-2].id
    outcomes: list[Outcome] = []
    with scenarios.open_workspace(plan) as workspace:
        big = _session(plan, workspace.root, LARGE_WINDOW_MODEL, seed=seed)
        history = history_at(plan, big, ToolBox(workspace), after)
        truth = ground_truth(plan, history)
        probes = make_probes(plan, truth)
        size = count_messages(history)
        window = window or size + HEADROOM
        for variant in variants:
            if variant == "server-compaction":
                if size < MIN_TRIGGER:
                    outcomes.append(Outcome(variant, None, note=(
                        f"not applicable: the history ({size:,} tokens) is below the API's "
                        f"minimum trigger of {MIN_TRIGGER:,} (R32)")))
                    continue
                edit = {"type": COMPACT, "trigger": {"type": "input_tokens",
                                                     "value": MIN_TRIGGER},
                        "pause_after_compaction": True}
                session = _session(plan, workspace.root, LARGE_WINDOW_MODEL, seed=seed,
                                   server=ServerEdits((edit,)))
                context = _server_side(history, session)
                shown = [b for b in context[-1]["content"] if b.get("type") == "compaction"]
                tokens = count_messages([{"role": "user", "content": shown}])
            else:
                session = _session(plan, workspace.root, LARGE_WINDOW_MODEL, budget=window,
                                   seed=seed)
                context = _client_side(variant, history, session)
                tokens = count_messages(context)
            answers = _ask(session, context, probes)
            outcomes.append(Outcome(variant, tokens, answers,
                                    [score(p, a) for p, a in zip(probes, answers, strict=True)]))
    return _report(plan, after, window, size, probes, outcomes)


def _report(plan: scenarios.Scenario, after: str, window: int, size: int,
            probes: list[Probe], outcomes: list[Outcome]) -> dict[str, Any]:
    rows = []
    for out in outcomes:
        by_kind = {k: [s for p, s in zip(probes, out.scores, strict=False) if p.kind == k]
                   for k in KINDS}
        rows.append({
            "variant": out.variant, "context_tokens": out.context_tokens,
            "score": sum(out.scores) / len(out.scores) if out.scores else None,
            "by_kind": {k: (sum(v) / len(v) if v else None) for k, v in by_kind.items()},
            "answers": out.answers, "note": out.note})
    return {"scenario": plan.name, "after": after, "window": window, "history_tokens": size,
            "probes": [{"kind": p.kind, "question": p.question, "expected": list(p.expected)}
                       for p in probes],
            "variants": rows}
