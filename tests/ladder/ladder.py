"""The pitfall ladder: one table, scenario × stage → pitfall or pass (DESIGN §2).

Each rung states a property that stage ``fixed_in`` guarantees. On every earlier stage the
property must fail *for the stated reason* (the test raises ``PitfallObserved``); from
``fixed_in`` on it must hold. Stages are taken from ``solutions/`` as they exist, so the
ladder grows with the workbook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ctxlab.runner import RunResult
from ctxlab.workbook.layout import STAGES, impl_root

WINDOW_200K = "claude-haiku-4-5"


@dataclass(frozen=True)
class Rung:
    """One property, the scenario that probes it, and the stage that fixes it."""

    id: str
    scenario: str
    model: str | None
    fixed_in: int
    why: str
    holds: Callable[[RunResult], bool]


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
    Rung("chat-heavy-no-loss", "chat-heavy", WINDOW_200K, 4,
         "§14.3 many small turns fill the window: offload cannot help, truncation forgets",
         lambda r: r.summary.success and not _thrashed(r)),
    Rung("estimate-chinese", "chinese-code", None, 5,
         "§9.5 chars/4 misses the reported size of Chinese text by far",
         lambda r: _final_estimate_error(r) <= 0.10),
    Rung("estimate-code", "bugfix-small", None, 5,
         "§9.5 chars/4 misses the reported size of a code-heavy request",
         lambda r: _final_estimate_error(r) <= 0.10),
)


def available_stages() -> list[int]:
    """Stages that have a reference solution."""
    return [s.number for s in STAGES if (impl_root("solutions") / s.package).exists()]


def table() -> dict[str, dict[int, str]]:
    """The ladder as text: rung id → {stage: "pitfall" | "pass"}."""
    return {r.id: {s: "pitfall" if s < r.fixed_in else "pass" for s in available_stages()}
            for r in LADDER}
