"""How real is the simulated agent: its exported runs measured beside the real logs (DESIGN
§4: "the agent's realism is measured, not assumed").

The pooled check runs the honest baseline — no context layer, on the large-window model the
total bill uses — on six scenarios at four seeds, writes each run as a Claude Code session log
(``ctxlab run --export-log``) and measures them with the same ``calibrate`` that reads real
sessions. ``markdown`` puts the two side by side: every habit's per-session estimate with its
bootstrap 95 % interval (``estimate``) and its verdict against the ±30 % band.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .estimate import BAND, HABITS, Estimate
from .report import Calibration

SCENARIOS = ("long-task", "chat-heavy", "medium-results", "bugfix-small", "constraint",
             "chinese-code")
SEEDS = tuple(range(8))
MODEL = "claude-sonnet-4-6"  # the total bill's large window: no run is cut short


def export(folder: Path, *, progress: Callable[[str], None] | None = None) -> Path:
    """The pooled runs, each written to ``folder`` as ``scenario@seed.jsonl``."""
    from ..runner import run

    for seed in SEEDS:
        for name in SCENARIOS:
            if progress is not None:
                progress(f"{name} seed {seed}")
            run(None, name, model=MODEL, seed=seed, export_log=folder / f"{name}@{seed}.jsonl")
    return folder


def verdict(real: Estimate, simulated: Estimate) -> str:
    """``within`` ±``BAND`` of the real per-session estimate, ``outside``, or ``no data``
    when either side has no session that measures the habit."""
    if real.value is None or simulated.value is None:
        return "no data"
    return "within" if abs(simulated.value - real.value) <= BAND * real.value else "outside"


def shown(value: Any) -> str:
    """A statistic as the reports print it: 3 decimals below 10, thousands separators."""
    if value is None:
        return "—"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.3f}" if value < 10 else f"{value:,.1f}"
    return f"{int(value):,}"


def with_interval(estimate: Estimate) -> str:
    """An estimate and its 95 % interval, e.g. ``1.483 (1.285–1.865)``."""
    if estimate.value is None:
        return "—"
    return f"{shown(estimate.value)} ({shown(estimate.low)}–{shown(estimate.high)})"


def side_by_side(real: Calibration, simulated: Calibration) -> list[dict[str, Any]]:
    """Every habit, real and simulated, with its verdict (``--json``)."""
    return [{"habit": h.key, "label": h.label.strip(),
             "real": real.per_session[h.key].to_dict(),
             "simulated": simulated.per_session[h.key].to_dict(),
             "verdict": verdict(real.per_session[h.key], simulated.per_session[h.key])}
            for h in HABITS]


def markdown(real: Calibration, simulated: Calibration) -> str:
    """The README's table: each habit's per-session estimate with its 95 % interval, real
    and simulated, and whether the simulated one is within the band."""
    lines = [f"| habit, per session | real logs ({real.stats['sessions']} sessions) "
             f"| simulated runs ({simulated.stats['sessions']}) | within ±30 % |",
             "|---|---|---|---|"]
    for row, habit in zip(side_by_side(real, simulated), HABITS, strict=True):
        mark = {"within": "yes", "outside": "**no**"}.get(row["verdict"], row["verdict"])
        lines.append(f"| {habit.label.strip()} | {with_interval(real.per_session[habit.key])} "
                     f"| {with_interval(simulated.per_session[habit.key])} | {mark} |")
    return "\n".join(lines)
