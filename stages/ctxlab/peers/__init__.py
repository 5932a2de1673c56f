"""Peers: the context layers a learner would otherwise use, on the same bench (guide §7, §6.6).

Each is used *alone* on stage 1's loop, through the one runner, metered like a stage:

- ``langchain-trim`` / ``langchain-trim-pairs``: LangChain's ``trim_messages``, as its docs set
  it up, and with pairing-safe settings (``peers.trim``);
- ``langchain-summary`` / ``langchain-summary-cached``: LangChain's ``SummarizationMiddleware``
  with its defaults, and with stage 5's cache breakpoints (``peers.summarize``);
- ``api-clear`` / ``api-compact``: the API's own ``clear_tool_uses`` (tuned as in
  ``serverside``: with its documented defaults the agent re-fetches forever) and
  ``compact_20260112`` server-side compaction, with a client that only lays out the cache
  breakpoints (the variants of ``ctxlab serverside``).

The LangChain ones need the optional extra: ``pip install -e '.[peers]'``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

INSTALL = "pip install -e '.[peers]'"
LANGCHAIN = ("langchain", "langchain_core", "langchain_anthropic")


@dataclass(frozen=True)
class Peer:
    """One peer: a ``--layer`` factory with its options, or a ``ctxlab serverside`` variant."""

    name: str
    what: str
    layer: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    variant: str | None = None  # a key of ``beyond.server_side.VARIANTS``


PEERS: tuple[Peer, ...] = (
    Peer("langchain-trim", "trim_messages as the docs show it (start_on='human')",
         "ctxlab.peers.trim:make_layer", {"setting": "docs"}),
    Peer("langchain-trim-pairs", "trim_messages, task kept, start_on='ai' (pairing-safe)",
         "ctxlab.peers.trim:make_layer", {"setting": "pairs"}),
    Peer("langchain-summary", "SummarizationMiddleware, its defaults, trigger at 0.8",
         "ctxlab.peers.summarize:make_layer"),
    Peer("langchain-summary-cached", "SummarizationMiddleware + stage 5's cache breakpoints",
         "ctxlab.peers.summarize:make_layer", {"cache": True}),
    Peer("api-clear", "API clear_tool_uses_20250919, keep 5, clear at least 30K",
         variant="b"),
    Peer("api-compact", "API compact_20260112, trigger 150K (4.6+ models)", variant="c"),
)


def missing() -> list[str]:
    """The LangChain packages that are not installed (empty: the extra is there)."""
    return [name for name in LANGCHAIN if importlib.util.find_spec(name) is None]


def run_peer(peer: Peer, scenario: str, *, seed: int = 0) -> dict[str, Any]:
    """One peer's row: a run summary whose ``stage`` is the peer's name, plus its ``model``."""
    from ..beyond.server_side import VARIANTS, run_variant
    from ..runner import run
    from ..scenarios import load

    model = load(scenario).model
    if peer.variant is not None:
        variant = next(v for v in VARIANTS if v.key == peer.variant)
        row = run_variant(variant, scenario, model, seed)
        return {**row, "stage": peer.name}
    result = run(None, scenario, layer=peer.layer, layer_options=dict(peer.options),
                 seed=seed, label=peer.name)
    return {**result.summary.to_dict(), "model": model}


def rows(scenario: str, *, seed: int = 0,
         on_run: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Every peer's row on ``scenario``."""
    out = []
    for peer in PEERS:
        if on_run:
            on_run(peer.name)
        out.append(run_peer(peer, scenario, seed=seed))
    return out
