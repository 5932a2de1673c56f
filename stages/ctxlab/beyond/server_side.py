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
from dataclasses import replace
from typing import Any

from ..rows import (
    API_CLEAR,
    API_COMPACT,
    CACHE_ONLY,
    CLEAR_DEFAULTS,
    CLEAR_TUNED,
    STAGE_5,
    Row,
    compaction_model,
    run_row,
)
from ..scenarios import load

VARIANTS = (
    Row("a", "client: stage 5 pipeline", "api", layer=STAGE_5, variant="a"),
    Row("b0", "API clear_tool_uses, documented defaults", "api", layer=CACHE_ONLY,
        edits=(CLEAR_DEFAULTS,), variant="b0"),
    replace(API_CLEAR, name="b"),
    replace(API_COMPACT, name="c"),
    Row("d", "stage 5 + API clear_tool_uses as in b", "api", layer=STAGE_5,
        edits=(CLEAR_TUNED,), variant="d"),
    Row("baseline", "keep everything (cache only, 1M window)", "api", layer=CACHE_ONLY,
        large_window=True, variant="baseline"),
)
"""The variants, as rows of the bill's registry (``ctxlab.rows``): b and c are the rows
``api-clear`` and ``api-compact`` of ``ctxlab compare --peers``."""


def compare_server_side(scenario: str = "long-task", *, model: str | None = None, seed: int = 0,
                        keys: tuple[str, ...] | None = None,
                        on_run: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Every variant on one scenario; ``model`` defaults to the scenario's own."""
    model = model or load(scenario).model
    rows = []
    for variant in VARIANTS:
        if keys is not None and variant.variant not in keys:
            continue
        if on_run:
            on_run(variant.what)
        rows.append(run_row(variant, scenario, model=model, seed=seed))
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
