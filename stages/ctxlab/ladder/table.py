"""The ladder: one table of the guide's stage pitfalls, rung × cell (DESIGN §2, guide §14).

Each rung names the section it comes from, the stage that fixes it, and the status each cell
shows on the reference, pinned: a verdict that changes fails the tests (``pinned``) until the
table is edited on purpose. ``ctxlab ladder`` prints what the cells show on the implementation
in use, with the figure behind each verdict. The rungs whose quantity is a seeded draw
(context rot, the cache after a compaction, the hand-off, the parallel burst) are judged over
``paired.SEEDS`` by a paired sign test (``ladder.paired``); ``U`` marks "not shown".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from . import context_rungs as c
from . import rot_rungs as r
from . import subagent_rungs as a
from . import summary_rungs as s
from . import system_rungs as d
from .core import BROKEN, HOLDS, NA, NOT_SHOWN, PITFALL, Cell, Rung, Verdict

P, H, N, U = PITFALL, HOLDS, NA, NOT_SHOWN
NO_CUT = "stage 1 keeps everything: no cut, no removal, nothing re-fetched"
NO_OFFLOAD = "no offload before stage 3"
NO_SUMMARY = "no summary before stage 4"
NO_CACHE = "stages 1–3 send no cache_control: there is no cached prefix to lose"

LADDER: tuple[Rung, ...] = (
    Rung("estimate-bias", "§9.5", 5, "chars/4 is far off the API's count on Chinese, code, "
         "JSON and base64 (held-out texts)",
         {"1": P, "2": P, "3": P, "4": P, "5": H}, c.estimate_bias),
    Rung("overflow", "§9.1", 2, "the whole history outgrows the window: prompt is too long",
         {"1": P, "2": H, "3": H, "4": H, "5": H}, c.overflow),
    Rung("orphan-tool-result", "§9.2", 2, "a cut between tool_use and tool_result: the API "
         "rejects the next request", {"1": N, "2:naive": P, "2": H, "3": N, "4": H, "5": H},
         c.orphan_tool_result,
         lacks={1: NO_CUT, 3: "stage 3 offloads results in place and never removes a message"}),
    Rung("thrash", "§12.2", 3, "truncation throws away what the agent still needs: it "
         "re-reads and re-runs", {"1": N, "2": P, "3": H, "4": H, "5": H}, c.thrash,
         lacks={1: NO_CUT}),
    Rung("read-exemption-loop", "§6.10", 3, "an offloaded read is read back and offloaded "
         "again, and again", {"1": N, "2": N, "3:no-read-exemption": P, "3": H, "4": H, "5": H},
         c.read_exemption_loop, lacks={1: NO_OFFLOAD, 2: NO_OFFLOAD}),
    Rung("parallel-explosion", "§2.4", 3, "parallel results each under budget overflow the "
         "window together",
         {"1": P, "2": P, "3:no-per-message-budget": P, "3": H, "4": H, "5": H},
         c.parallel_explosion),
    Rung("context-rot", "§4", 5, "past the band the model stops finding what is in view: it "
         "fetches facts it holds again", {"1": N, "2": P, "3": U, "4": U, "5:no-band": U,
                                            "5": U}, r.context_rot,
         lacks={1: "stage 1 has no layer: the long task's window overflows (rung overflow) "
                   "before a fact is sought past the band"}),
    Rung("history-fills-window", "§14 stage 3", 4, "many small turns fill the window: "
         "offload cannot help with history", {"1": N, "2": N, "3": P, "4": H, "5": H},
         c.history_fills_window,
         lacks={1: "no offload: the overflow is rung overflow's",
                2: "stage 2 truncates history: the fill is rung thrash's trade-off"}),
    Rung("summary-ptl", "§9.1", 4, "the summary request itself is too long",
         {"1": N, "2": N, "3": N, "4:no-ptl-retry": P, "4": H, "5": N}, s.summary_ptl,
         lacks=dict.fromkeys((1, 2, 3), NO_SUMMARY)),
    Rung("summary-loses-constraint", "§12.3", 4, "a fluent free-form summary drops the "
         "user's rule and the agent breaks it",
         {"1": N, "2": N, "3": N, "4:free-form": P, "4": H, "5:free-form": H, "5": H},
         s.summary_loses_constraint, lacks=dict.fromkeys((1, 2, 3), NO_SUMMARY)),
    Rung("forgets-files", "§10", 4, "after a summary the agent has the file's name, not its "
         "content: it reads it again, or edits a stale copy",
         {"1": N, "2": N, "3": N, "4:no-rebuild": P, "4:no-mtime-notes": P, "4": H, "5": H},
         s.forgets_files, lacks=dict.fromkeys((1, 2, 3), NO_SUMMARY)),
    Rung("failure-storm", "§9.4", 4, "a failing summarizer is called again on every turn",
         {"1": N, "2": N, "3": N, "4:no-breaker": P, "4": H, "5": H}, s.failure_storm,
         lacks=dict.fromkeys((1, 2, 3), NO_SUMMARY)),
    Rung("cache-collapse-at-compaction", "§6.5", 5, "every summary rewrites the cached "
         "prefix: the next request reads nothing", {"1": N, "2": N, "3": N, "4": P, "5": H},
         s.cache_collapse, lacks=dict.fromkeys((1, 2, 3), NO_CACHE)),
    Rung("one-big-hammer", "§7.1", 5, "an LLM summary where clearing old results would do",
         {"1": N, "2": N, "3": N, "4": P, "5": H}, s.one_big_hammer,
         lacks=dict.fromkeys((1, 2, 3), NO_SUMMARY)),
    Rung("volatile-in-static-zone", "§6.3", 5, "a clock ahead of the breakpoint changes the "
         "cached prefix on every request",
         {"1": N, "2": N, "3": N, "4": P, "5:clock-in-static-zone": P, "5": H},
         s.volatile_in_static_zone, lacks=dict.fromkeys((1, 2, 3), NO_CACHE)),
    Rung("dead-layer", "§12.8", 5, "a layer that is built but never fires, found only by "
         "acceptance", {"1": N, "2": N, "3": N, "4": N, "5:microcompact-keeps-all": P, "5": H},
         d.dead_layer,
         lacks=dict.fromkeys((1, 2, 3, 4), "acceptance checks the stage-5 pipeline's layers")),
    Rung("handoff-loss", "§11.4", 1, "a sub-agent's free-prose report leaves out a fact it "
         "saw: the lead agent fetches it again itself (the harness asks every stage's "
         "children for the structured report)",
         {"1": H, "2": H, "3": H, "4": H, "5:free-handoff": P, "5": H}, a.handoff_loss),
)


SEEDED = frozenset({"overflow", "parallel-explosion", "context-rot",
                    "cache-collapse-at-compaction", "handoff-loss"})
"""Rungs judged over ``paired.SEEDS`` (one run per seed and cell): their cells' tests carry the
``seeded`` mark, which ``make reliability`` runs and ``make test`` leaves out for its budget."""

STAGE_ONLY = {"estimate-bias": "judged on a stage's own estimate_tokens",
              "summary-ptl": "drives stage 4's summarizer directly",
              "dead-layer": "checks the stage-5 pipeline's layers (ctxlab accept --layer)",
              "handoff-loss": "judges the sub-agent tool's hand-off, not a context layer"}
"""Rungs that look inside a stage's code: not judged on your own layer."""
LAYER_CELL = "layer"


def rung(rung_id: str) -> Rung:
    """The rung with this id."""
    for candidate in LADDER:
        if candidate.id == rung_id:
            return candidate
    raise KeyError(f"no rung {rung_id!r}; rungs: {', '.join(r.id for r in LADDER)}")


class Unexpected(AssertionError):
    """A cell's verdict is not the one the table pins."""


def pinned(one: Rung, key: str) -> Verdict:
    """The cell's verdict, which must be the status the table pins (else ``Unexpected``);
    an exception while judging (a stub's ``NotImplementedError``) propagates."""
    verdict = one.verdict(key)
    if verdict.status != one.cells[key]:
        raise Unexpected(f"{one.id}[{key}]: the table pins {one.cells[key]!r}, the run shows "
                         f"{verdict.status!r}: {verdict.evidence}")
    return verdict


def judge(one: Rung, key: str, cell: Cell | None = None) -> Verdict:
    """A cell's verdict (``cell``: your own layer's); anything that stops the judging makes
    it ``broken``, with why."""
    try:
        return one.judge(cell) if cell is not None else one.verdict(key)
    except NotImplementedError as error:
        return Verdict(BROKEN, f"not implemented yet: {error}")
    except Exception as error:  # a run that cannot be judged is a verdict, not a crash
        return Verdict(BROKEN, f"could not be judged: {type(error).__name__}: {error}")


def report(rungs: Iterable[Rung] = LADDER, *, stages: Iterable[int] | None = None,
           on_cell: Callable[[str, str], None] | None = None, layer: str | None = None,
           options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every rung's cells judged: ``{"rungs": [{"id", "section", "fixed_in", "why",
    "stages": {cell: {"status", "evidence"}}}]}`` (``stages``: only those stages' cells;
    ``layer``: also a ``"layer"`` cell, your own layer with ``options``, on every rung that
    does not look inside a stage's code)."""
    wanted = set(stages) if stages is not None else None
    out = []
    for one in rungs:
        cells = {}
        for key in one.cells:
            if wanted is not None and int(key.partition(":")[0]) not in wanted:
                continue
            if on_cell:
                on_cell(one.id, key)
            verdict = judge(one, key)
            cells[key] = {"status": verdict.status, "evidence": verdict.evidence}
        if layer is not None and one.id not in STAGE_ONLY:
            if on_cell:
                on_cell(one.id, LAYER_CELL)
            verdict = judge(one, LAYER_CELL, Cell(LAYER_CELL, 0, dict(options or {}), layer))
            cells[LAYER_CELL] = {"status": verdict.status, "evidence": verdict.evidence}
        out.append({"id": one.id, "section": one.section, "fixed_in": one.fixed_in,
                    "why": one.why, "stages": cells})
    return {"rungs": out}
