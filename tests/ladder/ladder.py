"""The pitfall ladder: one table, scenario × stage → pitfall or pass (DESIGN §2).

Each rung states a property that stage ``fixed_in`` guarantees. On the stages from ``first``
up to ``fixed_in`` the property must fail *for the stated reason* (the test raises
``PitfallObserved``); from ``fixed_in`` on it must hold. A rung whose weakness only exists
once a mechanism does (a summary that can lose a constraint) starts at that mechanism's
stage; ``layer_options`` (per stage: each stage's ``make_layer`` has its own options) can
switch a fix off, e.g. the structured template, to show what the next stage adds. Stages are
taken from ``solutions/`` as they exist, so the ladder grows with the workbook.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ctxlab.runner import RunResult
from ctxlab.workbook.layout import STAGES, impl_root

WINDOW_200K = "claude-haiku-4-5"
WINDOW_32K = "ctxlab-sim-32k"


@dataclass(frozen=True)
class Rung:
    """One property, the scenario that probes it, and the stage that fixes it."""

    id: str
    scenario: str
    model: str | None
    fixed_in: int
    why: str
    holds: Callable[[RunResult], bool]
    first: int = 1
    layer_options: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)

    def stages(self) -> list[int]:
        """The stages this rung runs on."""
        return [s for s in available_stages() if s >= self.first]

    def options(self, stage: int) -> dict[str, Any] | None:
        """The ``layer_options`` to run ``stage`` with (None: the stage's defaults)."""
        return dict(self.layer_options[stage]) if stage in self.layer_options else None


def _thrashed(result: RunResult) -> bool:
    """Some call was repeated and got the very same result back (§12.2)."""
    return any(record.thrash for record in result.records)


def _final_estimate_error(result: RunResult) -> float:
    last = [r for r in result.records if r.kind == "agent" and r.reported_input_tokens][-1]
    return abs(last.estimated_tokens - last.reported_input_tokens) / last.reported_input_tokens


LADDER: tuple[Rung, ...] = (
    Rung("long-task-fits", "long-task", WINDOW_200K, 2,
         "§9.1 the whole history outgrows a 200K window: prompt is too long",
         lambda r: r.summary.error is None and r.summary.success),
    Rung("long-task-no-thrash", "long-task", WINDOW_200K, 3,
         "§12.2 truncation throws away what the agent still needs: it re-reads and re-runs",
         lambda r: r.summary.success and not _thrashed(r)),
    Rung("chat-heavy-completes", "chat-heavy", WINDOW_200K, 4,
         "§14.3 many small turns fill the window: offload cannot help with history",
         lambda r: r.summary.success, first=3),
    Rung("estimate-chinese", "chinese-code", None, 5,
         "§9.5 chars/4 misses the reported size of Chinese text by far",
         lambda r: _final_estimate_error(r) <= 0.10),
    Rung("estimate-code", "bugfix-small", None, 5,
         "§9.5 chars/4 misses the reported size of a code-heavy request",
         lambda r: _final_estimate_error(r) <= 0.10),
    Rung("cache-survives-compaction", "long-task", WINDOW_200K, 5,
         "§6.5 no stable cached prefix: every compaction rewrites it, cache reads stay near zero",
         lambda r: r.summary.cache_read_share >= 0.8, first=4),
    Rung("medium-results-no-summary", "medium-results", WINDOW_200K, 5,
         "§7.1 one big hammer: medium results force an LLM summary where clearing would do",
         lambda r: r.summary.success and r.summary.summary_calls == 0, first=4),
    Rung("constraint-survives-summary", "constraint", WINDOW_32K, 5,
         "§12.3 a free-form summary drops the turn-1 constraint and the agent breaks it",
         lambda r: r.summary.success, first=4,
         layer_options={4: {"template": "free-form"}, 5: {"summary": {"template": "free-form"}}}),
)


def available_stages() -> list[int]:
    """Stages that have a reference solution."""
    return [s.number for s in STAGES if (impl_root("solutions") / s.package).exists()]


def table() -> dict[str, dict[int, str]]:
    """The ladder as text: rung id → {stage: "pitfall" | "pass" | "n/a"} ("n/a": before the
    rung's ``first`` stage, where it is not run)."""
    return {r.id: {s: "n/a" if s < r.first else "pitfall" if s < r.fixed_in else "pass"
                   for s in available_stages()} for r in LADDER}
