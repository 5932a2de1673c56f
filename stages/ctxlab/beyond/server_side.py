"""Server-side vs client-side context management: same task, same bill (guide §6.6, API
notes §5–§6).

The long task, managed four ways:

- **a** — the client: stage 5's pipeline (offload, snip, microcompact, summary, cache zones);
- **b** — the API: ``clear_tool_uses_20250919``; the client only lays out cache breakpoints;
- **c** — the API: ``compact_20260112`` server-side compaction, same cache-only client;
- **d** — both: stage 5's pipeline, and the API's clearing on every request.

Plus **b0**, the clearing edit with its documented defaults (to show why b is tuned), and a
keep-everything baseline on a 1M window. Clearing runs on the scenario's model
(``claude-haiku-4-5``, 200K). Compaction is offered only on 4.6+ models and never on Haiku
(API notes §6; ``ModelSpec.supports_compaction``), so c runs on the 1M-window model with the
documented default trigger, 150,000 tokens — below Haiku's 200K window, so every request of c
would fit Haiku's window too, and the long task (~247K tokens kept whole) crosses it. The
simulator counts tokens with one tokenizer for every model, so the token figures compare
directly; the dollars are given at each run's own prices and, for a like-for-like bill,
re-priced at the main model's price table from each call's usage partition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import models
from ..report.compare import LARGE_WINDOW_MODEL
from ..runner import run
from ..server_edits import CLEAR, COMPACT, ServerEdits
from ..telemetry import TurnRecord

CLEAR_DEFAULTS: dict[str, Any] = {"type": CLEAR}
CLEAR_TUNED: dict[str, Any] = {"type": CLEAR, "keep": {"type": "tool_uses", "value": 5},
                               "clear_at_least": {"type": "input_tokens", "value": 30_000}}
"""Keep 5: the final edit needs facts from five different results at once (the check output,
alerts.py, shards 2, 7 and 15); with the default 3 the agent re-fetches them forever. Clear at
least 30K: the docs' advice, so each cache invalidation buys a sizeable saving (API notes §5)."""
COMPACT_EDIT: dict[str, Any] = {"type": COMPACT,
                                "trigger": {"type": "input_tokens", "value": 150_000}}


@dataclass(frozen=True)
class Variant:
    """One way to manage the context: which client layer, which API edits, which model."""

    key: str
    label: str
    client: str  # "stage 5" or "cache only"
    edits: tuple[dict[str, Any], ...] = ()
    needs_compaction: bool = False
    large_window: bool = False


VARIANTS = (
    Variant("a", "client: stage 5 pipeline", "stage 5"),
    Variant("b0", "API clear_tool_uses, documented defaults", "cache only", (CLEAR_DEFAULTS,)),
    Variant("b", "API clear_tool_uses, keep 5, clear at least 30K", "cache only", (CLEAR_TUNED,)),
    Variant("c", "API compact_20260112, trigger 150K", "cache only", (COMPACT_EDIT,),
            needs_compaction=True),
    Variant("d", "stage 5 + API clear_tool_uses as in b", "stage 5", (CLEAR_TUNED,)),
    Variant("baseline", "keep everything (cache only, 1M window)", "cache only",
            large_window=True),
)


def compaction_model(model: str) -> str:
    """``model`` when it offers server-side compaction, else the large-window model."""
    return model if models.get(model).supports_compaction else LARGE_WINDOW_MODEL


def repriced(records: list[TurnRecord], model: str) -> float:
    """The run's bill at ``model``'s prices, from each call's usage partition."""
    spec = models.get(model)
    return sum(models.cost_usd(spec, input_tokens=r.input_tokens, output_tokens=r.output_tokens,
                               cache_read=r.cache_read_tokens, write_5m=r.cache_write_5m,
                               write_1h=r.cache_write_1h) for r in records)


def _layer(client: str) -> str:
    """The client's layer as ``MODULE:FACTORY``: plain data, so its runs can be shared."""
    return "s5_pipeline:make_layer" if client == "stage 5" else "ctxlab.beyond.layers:CacheOnly"


def run_variant(variant: Variant, scenario: str, model: str, seed: int = 0) -> dict[str, Any]:
    """One variant's run summary, with the like-for-like bill and the peak request size."""
    used = (LARGE_WINDOW_MODEL if variant.large_window else
            compaction_model(model) if variant.needs_compaction else model)
    result = run(None, scenario, layer=_layer(variant.client), model=used, seed=seed,
                 server=ServerEdits(variant.edits), label=variant.key)
    records = result.records
    summary = result.summary.to_dict()
    return {"variant": variant.key, "label": variant.label, "model": used,
            "edits": list(variant.edits), **summary,
            "cost_usd_same_prices": repriced(records, model),
            "peak_request_tokens": max((r.reported_input_tokens for r in records
                                        if r.kind == "agent"), default=0),
            "server_edits_applied": sum(e["layer"].startswith("server-")
                                        for r in records for e in r.compactions)}


def compare_server_side(scenario: str = "long-task", *, model: str | None = None, seed: int = 0,
                        keys: tuple[str, ...] | None = None,
                        on_run: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Every variant on one scenario; ``model`` defaults to the scenario's own."""
    from ..scenarios import load

    model = model or load(scenario).model
    rows = []
    for variant in VARIANTS:
        if keys is not None and variant.key not in keys:
            continue
        if on_run:
            on_run(variant.label)
        rows.append(run_variant(variant, scenario, model, seed))
    return {"scenario": scenario, "model": model, "prices_of": model,
            "compaction_model": compaction_model(model), "runs": rows,
            "capabilities": CAPABILITIES}


CAPABILITIES: list[dict[str, str]] = [
    {"capability": "keeps tool_use/tool_result pairs valid (§9.2)",
     "a": "yes, by its own code: cuts at round boundaries, checks every history",
     "b": "yes: the API blanks a result's content, the pair stays",
     "c": "yes: everything before the compaction block goes as a whole",
     "d": "yes"},
    {"capability": "puts files back after compacting (rebuild, §10)",
     "a": "yes: stage 4's rebuild runs after every summary",
     "b": "no: a cleared result is gone; the agent runs the tool again",
     "c": "no: the summary is all that is left; files are read again",
     "d": "only after its own summaries"},
    {"capability": "re-injects the user's rules after compacting (§12.3)",
     "a": "yes: every user text is kept outside the history and put back",
     "b": "not needed: only tool results are cleared, user text is never touched",
     "c": "only as far as the summary keeps them; `instructions` replaces the default prompt",
     "d": "yes"},
    {"capability": "cleared content comes back without re-running the tool (§3.2)",
     "a": "yes: an offloaded result keeps the path of its file",
     "b": "no",
     "c": "no",
     "d": "not for what the API cleared: the preview goes, and the path with it"},
    {"capability": "knows which results still matter",
     "a": "no, but what it clears stays recoverable",
     "b": "no: `keep` counts tool uses, not facts (b0 re-fetches forever with keep 3)",
     "c": "the summarizer decides what to keep",
     "d": "no"},
    {"capability": "keeps the prompt cache while clearing (§6.5–6.8)",
     "a": "batches clearing at its trigger; clears at once when the cache is cold",
     "b": "no: the documented behaviour invalidates from the first cleared block; "
          "clear_at_least only batches it",
     "c": "no: everything after the system prompt is written again",
     "d": "no, as b"},
    {"capability": "works with any provider and model (§6.6)",
     "a": "yes",
     "b": "Anthropic API only (beta context-management-2025-06-27)",
     "c": "Anthropic API only, 4.6+ models, not Haiku (beta compact-2026-01-12)",
     "d": "the clearing part: Anthropic API only"},
]
"""What each variant can and cannot do, by construction (the runs above show the effects)."""
