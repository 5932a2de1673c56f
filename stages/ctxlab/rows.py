"""The rows of the total bill, in one registry (DESIGN §6; guide §12.1, §14 stage 5).

Every row ``ctxlab compare`` can show — a stage, the keep-everything baseline, a peer, one of
the API's own variants, the oracle, a ``--layer`` of your own — is one ``Row``: which layer
(a stage's ``make_layer``, or a ``MODULE:FACTORY`` with its options), which server options
(the API's own edits, the model) and a label. ``result`` runs any of them through the one
runner (``runner.run``); ``as_dict`` is the row as ``compare --json`` prints it. Layers are
named, never imported, so this module sits below every layer it lists, and a run its row
determines is shared between processes (``runcache``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import models, scenarios
from .peers import LANGCHAIN, missing
from .runner import KEEP_EVERYTHING, RunResult, run
from .server_edits import CLEAR, COMPACT, ServerEdits
from .telemetry import TurnRecord

LARGE_WINDOW_MODEL = "claude-sonnet-4-6"  # 1M tokens: holds every scenario whole
ORACLE = "oracle"
CACHE_ONLY = "ctxlab.peers.cache_only:CacheOnly"
STAGE_5 = "s5_pipeline:make_layer"

CLEAR_DEFAULTS: dict[str, Any] = {"type": CLEAR}
CLEAR_TUNED: dict[str, Any] = {"type": CLEAR, "keep": {"type": "tool_uses", "value": 5},
                               "clear_at_least": {"type": "input_tokens", "value": 30_000}}
"""Keep 5: long-task's final edit needs facts from five different results at once (the check
output, alerts.py, shards 2, 7 and 15); with the default 3 the agent re-fetches them forever.
Clear at least 30K: the docs' advice, so each cache invalidation buys a sizeable saving (API
notes §5)."""
COMPACT_EDIT: dict[str, Any] = {"type": COMPACT,
                                "trigger": {"type": "input_tokens", "value": 150_000}}


@dataclass(frozen=True)
class Row:
    """One row: a layer, server options and a label (``name`` is the row's ``stage``)."""

    name: int | str
    what: str
    kind: str  # stage, baseline, peer, api, oracle or layer
    stage: int | None = None  # a stage's own make_layer
    layer: str | None = None  # else MODULE:FACTORY (None: no layer at all)
    options: dict[str, Any] = field(default_factory=dict)
    edits: tuple[dict[str, Any], ...] = ()  # the API's own context management
    large_window: bool = False
    needs_compaction: bool = False
    needs: tuple[str, ...] = ()  # packages the layer imports
    plan: bool = False  # its factory is told the scenario (the oracle reads the plan)
    variant: str | None = None  # its key in ``ctxlab serverside``

    def model(self, model: str) -> str:
        """The model this row runs on, given the scenario's."""
        if self.large_window:
            return LARGE_WINDOW_MODEL
        return compaction_model(model) if self.needs_compaction else model

    def missing(self) -> list[str]:
        """The packages this row needs that are not installed."""
        return missing(self.needs) if self.needs else []


def compaction_model(model: str) -> str:
    """``model`` when it offers server-side compaction, else the large-window model."""
    return model if models.get(model).supports_compaction else LARGE_WINDOW_MODEL


def stage_row(stage: int, options: dict[str, Any] | None = None) -> Row:
    """A stage's row (``options``: its ``make_layer`` options, ``--set``)."""
    return Row(stage, f"stage {stage}", "stage", stage=stage, options=dict(options or {}))


def layer_row(spec: str, options: dict[str, Any] | None = None) -> Row:
    """A ``--layer MODULE:FACTORY`` row, named by its spec."""
    return Row(spec, "your own layer", "layer", layer=spec, options=dict(options or {}))


BASELINE = Row(KEEP_EVERYTHING, "keep everything, on a 1M window", "baseline",
               large_window=True)
API_CLEAR = Row("api-clear", "API clear_tool_uses, keep 5, clear at least 30K", "api",
                layer=CACHE_ONLY, edits=(CLEAR_TUNED,), variant="b")
API_COMPACT = Row("api-compact", "API compact_20260112, trigger 150K", "api", layer=CACHE_ONLY,
                  edits=(COMPACT_EDIT,), needs_compaction=True, variant="c")
PEERS: tuple[Row, ...] = (
    Row("observation-masking", "last 5 tool results in full, older ones one line (SWE-agent)",
        "peer", layer="ctxlab.peers.masking:make_layer"),
    Row("observation-masking-cached", "observation masking + stage 5's cache breakpoints",
        "peer", layer="ctxlab.peers.masking:make_layer", options={"cache": True}),
    Row("langchain-trim", "trim_messages as the docs show it (start_on='human')", "peer",
        layer="ctxlab.peers.trim:make_layer", options={"setting": "docs"}, needs=LANGCHAIN),
    Row("langchain-trim-pairs", "trim_messages, task kept, start_on='ai' (pairing-safe)",
        "peer", layer="ctxlab.peers.trim:make_layer", options={"setting": "pairs"},
        needs=LANGCHAIN),
    Row("langchain-summary", "SummarizationMiddleware, its defaults, trigger at 0.8", "peer",
        layer="ctxlab.peers.summarize:make_layer", needs=LANGCHAIN),
    Row("langchain-summary-cached", "SummarizationMiddleware + stage 5's cache breakpoints",
        "peer", layer="ctxlab.peers.summarize:make_layer", options={"cache": True},
        needs=LANGCHAIN),
    API_CLEAR,
    API_COMPACT,
)
"""``compare --peers``: what a learner would otherwise use, each alone on stage 1's loop."""
ORACLE_ROW = Row(ORACLE, "the lower bound from the scenario's plan", "oracle",
                 layer="ctxlab.oracle:make_oracle", plan=True)


def result(row: Row, scenario: str, *, seed: int = 0, model: str | None = None,
           delegation: dict[str, Any] | None = None) -> RunResult:
    """``row`` run on ``scenario`` (on ``model`` instead of the scenario's, when given;
    ``delegation``: the runner's sub-agent settings, §11)."""
    own = model or scenarios.load(scenario).model
    used = row.model(own)
    options = {**row.options, **({"scenario": scenario} if row.plan else {})}
    label = None if row.kind in ("stage", "baseline", "layer") else str(row.name)
    return run(row.stage, scenario, model=None if used == own and model is None else used,
               seed=seed, layer=row.layer, layer_options=options or None,
               server=ServerEdits(row.edits) if row.edits else None, label=label,
               delegation=delegation)


def as_dict(row: Row, ran: RunResult, model: str) -> dict[str, Any]:
    """The row as ``compare --json`` prints it: the run summary; a peer's and an API variant's
    with the model it ran on; an API variant's with its edits, its bill at ``model``'s
    prices and the largest request it sent."""
    summary = ran.summary.to_dict()
    if row.kind not in ("peer", "api"):
        return summary
    used = row.model(model)
    if row.kind == "peer":
        return {**summary, "model": used}
    records = ran.records
    return {"variant": row.variant, "label": row.what, "model": used, "edits": list(row.edits),
            **summary, "cost_usd_same_prices": repriced(records, model),
            "peak_request_tokens": max((r.reported_input_tokens for r in records
                                        if r.kind == "agent"), default=0),
            "server_edits_applied": sum(e["layer"].startswith("server-")
                                        for r in records for e in r.compactions)}


def run_row(row: Row, scenario: str, *, seed: int = 0, model: str | None = None
            ) -> dict[str, Any]:
    """``row`` run on ``scenario``, as ``compare --json`` prints it."""
    own = model or scenarios.load(scenario).model
    return as_dict(row, result(row, scenario, seed=seed, model=model), own)


def repriced(records: list[TurnRecord], model: str) -> float:
    """A run's bill at ``model``'s prices, from each call's usage partition."""
    spec = models.get(model)
    return sum(models.cost_usd(spec, input_tokens=r.input_tokens, output_tokens=r.output_tokens,
                               cache_read=r.cache_read_tokens, write_5m=r.cache_write_5m,
                               write_1h=r.cache_write_1h) for r in records)
