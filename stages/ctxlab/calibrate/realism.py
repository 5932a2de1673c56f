"""How real is the simulated agent: its exported runs measured beside the real logs (DESIGN
§4: "the agent's realism is measured, not assumed").

The pooled check runs the honest baseline — no context layer, on the large-window model the
total bill uses — on six scenarios at four seeds, writes each run as a Claude Code session log
(``ctxlab run --export-log``) and measures them with the same ``calibrate`` that reads real
sessions. ``markdown`` puts the two side by side with the ±30 % band the habits are held to.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

SCENARIOS = ("long-task", "chat-heavy", "medium-results", "bugfix-small", "constraint",
             "chinese-code")
SEEDS = (0, 1, 2, 3)
MODEL = "claude-sonnet-4-6"  # the total bill's large window: no run is cut short
BAND = 0.30
CHECKED = ("note_rate", "output_tokens_median", "reread_in_view_rate")
"""The habits held to ``BAND`` of the real figures; the other rows are shown, not held."""
ROWS = (("sessions", "sessions"), ("responses", "responses"),
        ("output_tokens_median", "output tokens per response, median"),
        ("output_tokens_p90", "output tokens per response, p90"),
        ("parallel_mean", "tool calls per calling response"),
        ("note_rate", "note rate"),
        ("reread_in_view_rate", "re-reads of a file in view, per read"),
        ("reread_after_compaction_rate", "re-reads after a compaction, per read"))


def export(folder: Path, *, progress: Callable[[str], None] | None = None) -> Path:
    """The pooled runs, each written to ``folder`` as ``scenario@seed.jsonl``."""
    from ..runner import run

    for seed in SEEDS:
        for name in SCENARIOS:
            if progress is not None:
                progress(f"{name} seed {seed}")
            run(None, name, model=MODEL, seed=seed, export_log=folder / f"{name}@{seed}.jsonl")
    return folder


def within(real: dict[str, Any], simulated: dict[str, Any], key: str) -> bool:
    """Whether the simulated figure is within ``BAND`` of the real one."""
    want, got = real.get(key), simulated.get(key)
    return want is not None and got is not None and abs(got - want) <= BAND * want


def shown(value: Any) -> str:
    """A statistic as the reports print it: 3 decimals below 10, thousands separators."""
    if value is None:
        return "—"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.3f}" if value < 10 else f"{value:,.1f}"
    return f"{int(value):,}"


def markdown(real: dict[str, Any], simulated: dict[str, Any]) -> str:
    """The README's table: each statistic, real and simulated, and for the held habits
    whether the simulated one is within the band."""
    lines = ["| statistic | real logs | simulated runs | within ±30 % |", "|---|---|---|---|"]
    for key, label in ROWS:
        held = ("yes" if within(real, simulated, key) else "**no**") if key in CHECKED else ""
        lines.append(f"| {label} | {shown(real.get(key))} | {shown(simulated.get(key))} "
                     f"| {held} |")
    return "\n".join(lines)
