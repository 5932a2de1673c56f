"""Rungs of stage 4 and the cache: the summary too long, the lost constraint, the forgotten
files, the failure storm, the cache collapse, the one big hammer, the clock in the static zone
(guide §14 stages 4–5; §6.3, §6.5, §7.1, §9.1, §9.4, §10, §12.3–§12.4)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from .. import scenarios
from ..brain import Brain
from ..brain.workset import says_changed
from ..outage import summarizer_down
from ..runner import KEEP_EVERYTHING, SYSTEM, RunResult, load_stage, run
from ..session import Session
from ..sim import Simulator, make_client
from ..telemetry import error_info
from ..tokens import count_messages
from ..tools import definitions
from ..workbook.router import FINDER
from . import paired, runs
from .core import NA, Cell, Verdict, broken, holds, pitfall
from .evidence import PTL, agent, events, pct, rejected

SMALL = "ctxlab-sim-32k"
WINDOW_200K = "claude-haiku-4-5"
CONSTRAINT = scenarios.load("constraint").constraints[0].text
WATCH = runs.Setup("watch-constraint", watch=(CONSTRAINT,))
"""Every run of the constraint task watches for the rule, so all its rungs share the runs."""


def constraint_run(cell: Cell) -> runs.Run:
    """The 32K constraint task: two or three summaries, a rule given at turn 1."""
    return runs.get(cell, "constraint", model=SMALL, setup=WATCH)


def summary_loses_constraint(cell: Cell) -> Verdict:
    done = constraint_run(cell)
    result, seen = done.result, [s for s in done.seen if not s[0]]
    summarized = [r.turn for r in agent(result) if any(e["layer"] == "summary"
                                                       for e in r.compactions)]
    if not summarized:
        return broken("no summary was made: nothing could lose the rule")
    after = [i for i, r in enumerate(agent(result)) if r.turn in summarized]
    lost = [summarized[k] for k, i in enumerate(after) if i < len(seen)
            and CONSTRAINT not in seen[i][1]]
    broke = [p for p in result.problems if "config.py" in p]
    if lost and broke:
        return pitfall(f"the rule was gone from the request after the summary at turn "
                       f"{lost[0]}; then {broke[0]}")
    if lost:
        return broken(f"the rule was lost at turn {lost[0]} but never tested")
    shown = ", ".join(map(str, summarized[:5])) + (" …" if len(summarized) > 5 else "")
    return holds(f"{len(summarized)} summaries (turns {shown}); "
                 "the rule was in every request after them and config.py was left alone")


def _after(cell: Cell, seed: int) -> tuple[list[Any], list[Any]]:
    """(the requests right after a compaction that rewrote history, the other requests after
    the first) of the 32K constraint task at ``seed``."""
    calls = agent(runs.get(cell, "constraint", model=SMALL, setup=WATCH, seed=seed).result)
    after = [r for r in calls if any(e["layer"] != "offload" for e in r.compactions)]
    return after, [r for r in calls if r not in after and r.turn > 1]


def _uncached(cell: Cell, seed: int) -> float:
    """The share of the input not read from the cache on the requests after a compaction."""
    after = _after(cell, seed)[0]
    return 1 - sum(r.cache_read_tokens for r in after) / max(
        sum(r.reported_input_tokens for r in after), 1)


def _collapsed(cell: Cell, seed: int) -> str | None:
    after, between = _after(cell, seed)
    cold = [r for r in after if r.cache_read_tokens == 0
            and r.cache_write_tokens >= 0.9 * r.reported_input_tokens]
    if not cold:
        return None
    warm = sum(r.cache_read_tokens for r in between) / max(
        sum(r.reported_input_tokens for r in between), 1)
    return (f"{len(cold)} of the {len(after)} requests after a compaction read 0 cached "
            f"tokens and wrote their whole prefix again (turn {cold[0].turn} first); "
            f"{pct(warm)} read between them")


def cache_collapse(cell: Cell) -> Verdict:
    weak_side, partner = paired.sides(cell, 5)
    return paired.judge(cell, partner, weak_side=weak_side,
                        name="input not read from the cache on the requests right after a "
                             "compaction (32K constraint task)",
                        quantity=_uncached, mechanism=_collapsed, fmt=pct)


def one_big_hammer(cell: Cell) -> Verdict:
    result = runs.get(cell, "medium-results", model=WINDOW_200K).result
    pressure = events(result, "snip", "microcompact", "summary", "truncate", "blocking")
    if not pressure:
        return broken("the history never came under pressure")
    calls = result.summary.summary_calls
    cheap = events(result, "snip", "microcompact")
    if calls and not cheap:
        return pitfall(f"{calls} summary call(s) for results each under the 50K offload "
                       f"budget; no cheaper layer exists to clear them first")
    if calls:
        return broken(f"cheap layers fired {len(cheap)} time(s) and still {calls} summaries")
    freed = sum(int(e["tokens_freed"]) for _, e in cheap)
    return holds(f"{len(cheap)} cheap compactions freed {freed:,} tokens; 0 summary calls")


VOLATILE = "volatile-context"  # named in the verdict: the scenario to re-run and look at


def volatile_in_static_zone(cell: Cell) -> Verdict:
    result = runs.get(cell, VOLATILE).result
    calls = agent(result)
    seconds = len({int(r.clock) for r in calls})  # the clock the harness sends has seconds
    if "clock" not in scenarios.load(VOLATILE).dynamic or seconds < 2:
        return broken("no clock changed between requests")
    later = [r for r in calls[1:] if r.reported_input_tokens >= 4_096]  # past Haiku's minimum
    if not later:
        return broken("no request was large enough to be cached")
    read = sum(r.cache_read_tokens for r in later) / sum(r.reported_input_tokens for r in later)
    reading = sum(r.cache_read_tokens > 0 for r in later)
    rewrote = sum(r.cache_write_tokens >= 0.9 * r.reported_input_tokens for r in later)
    if read < 0.05:
        return pitfall(f"{VOLATILE}: the clock showed {seconds} different times over {len(calls)} "
                       f"requests: cache read {pct(read)} on the {len(later)} cacheable ones, "
                       f"{rewrote} of them wrote their whole prefix again")
    return holds(f"{VOLATILE}: the clock showed {seconds} different times over {len(calls)} "
                 f"requests: {reading} of the {len(later)} cacheable ones read the cache, "
                 f"{pct(read)} of their input")


def _outage(sim: Simulator) -> None:
    summarizer_down(sim, 1_000)


OUTAGE = runs.Setup("summarizer-outage", faults=_outage)
STORM_TURNS = 60


def failure_storm(cell: Cell) -> Verdict:
    result = runs.get(cell, "chat-heavy", model=SMALL, setup=OUTAGE, max_turns=STORM_TURNS).result
    if result.summary.summary_calls == 0:
        return broken("no summary was asked for: the outage was never met")
    calls = result.summary.summary_calls
    fallback = events(result, "truncate", "blocking", "snip", "microcompact")
    if fallback and calls <= 3:
        return holds(f"{calls} summary calls came back empty, then the breaker opened: "
                     f"{len(fallback)} local compaction(s), no more model calls for them")
    ended = result.summary.error["message"] if result.summary.error else (
        f"still calling after {result.summary.turns} turns")
    return pitfall(f"{calls} summary calls came back empty, one turn after another, and "
                   f"nothing stopped them; the run: {ended}")


def _observer(calls: list[tuple[str, str | None]]) -> Any:
    def observe(kind: str, sent: Any, response: Any, error: BaseException | None) -> None:
        calls.append((kind, error_info(error)["message"] if error is not None else None))
    return observe


_TOO_BIG: dict[tuple[str, int | None, str], list[dict[str, Any]]] = {}


def too_big_history() -> list[dict[str, Any]]:
    """The long task's history kept whole on a 1M window: more than a 200K window holds
    (one per implementation selection: it runs stage 1's loop)."""
    chosen = FINDER.selection
    key = (chosen.impl, chosen.stage, chosen.chain)
    if key not in _TOO_BIG:
        _TOO_BIG[key] = run(None, "long-task", model="claude-sonnet-4-6").messages
    return _TOO_BIG[key]


def summary_ptl(cell: Cell) -> Verdict:
    """A history already past the window (a session moved to a smaller-window model) meets
    the stage's compaction: the summary request itself is too long."""
    history = too_big_history()
    plan = scenarios.load("long-task")
    calls: list[tuple[str, str | None]] = []
    with tempfile.TemporaryDirectory() as tmp:
        session = Session(make_client(Simulator(responder=Brain(plan))), WINDOW_200K,
                          [{"type": "text", "text": SYSTEM}], definitions(), Path(tmp),
                          observer=_observer(calls))
        layer = load_stage(cell.stage).make_layer(**cell.options)
        layer.prepare(list(history), session)
    size = count_messages(history)
    summaries = [c for c in calls if c[0] == "summary"]
    too_long = [c for c in summaries if c[1] and PTL in c[1]]
    cut = [e for e in session.events if e["layer"] == "blocking"]
    if not summaries and cut:  # §8.5: above the blocking mark no model call is made
        return Verdict(NA, f"a {size:,}-token history was cut locally first (blocking, "
                           f"{cut[0]['trigger']}): stage {cell.stage} sends no summary "
                           "request over its blocking mark, so none can be too long")
    if not too_long:
        return broken(f"a {size:,}-token history: no summary request was too long")
    dropped = [e for e in session.events if e["layer"] == "ptl-drop"]
    written = [e for e in session.events if e["layer"] == "summary"]
    if written and dropped:
        return holds(f"a {size:,}-token history: the summary request was too long "
                     f"{len(too_long)} time(s); {dropped[0]['trigger'].split(':')[0]}, then "
                     "the summary was written")
    if written:
        return broken("the summary was written without the rejection being handled")
    return pitfall(f"a {size:,}-token history: the summary request was rejected "
                   f"({too_long[0][1]}) and nothing retried it: no compaction")


__all__ = ["KEEP_EVERYTHING", "cache_collapse", "constraint_run", "failure_storm",
           "forgets_files", "one_big_hammer", "rejected", "summary_loses_constraint",
           "summary_ptl",
           "volatile_in_static_zone"]


def _reads_and_edits(result: RunResult) -> list[tuple[int, str, str]]:
    """(turn, tool, path) of every read_file and edit_file call, in order."""
    out = []
    turn = 0
    for message in result.original:
        if message["role"] != "assistant":
            continue
        turn += 1
        for block in message["content"]:
            if block.get("type") == "tool_use" and block["name"] in ("read_file", "edit_file"):
                out.append((turn, block["name"], str(block["input"].get("path", ""))))
    return out


def _forgets(cell: Cell) -> Verdict:
    """The file being edited, after a summary mid-edit: attached again, or read again."""
    result = runs.get(cell, "edit-mid-compaction").result
    summaries = [r.turn for r in agent(result) if any(e["layer"] == "summary"
                                                      for e in r.compactions)]
    calls = _reads_and_edits(result)
    if not summaries:
        return broken("no summary was made: nothing could take the file out of view")
    first = summaries[0]
    edited = {p for t, tool, p in calls if tool == "edit_file" and t < first}
    after = [(tool, p) for t, tool, p in calls if t >= first and p in edited]
    if not edited or not any(tool == "edit_file" for tool, _ in after):
        return broken("the summary did not fall between two edits of one file")
    path = next(iter(edited))
    if after[0][0] == "read_file":
        return pitfall(f"summary at turn {first} between two edits of {path}: its content was "
                       f"not attached, so the agent read {path} again before the second edit")
    return holds(f"summary at turn {first} between two edits of {path}: the rebuild attached "
                 "it, and the agent made the second edit without reading it again")


def _stale(cell: Cell) -> Verdict:
    """A file rewritten on disk between the agent's read and its edit (§10.2)."""
    result = runs.get(cell, "stale-file").result
    plan = scenarios.load("stale-file")
    step = next(s for s in plan.steps if s.stale is not None)
    summarized = any(e["layer"] == "summary" for _, e in events(result, "summary"))
    said = _says_changed(result, step.call.target)
    if not summarized and not said:
        return broken("no summary was made: no rebuild could note the change")
    edits = [c for t, tool, c in _reads_and_edits(result) if tool == "edit_file"]
    stale_edit = any(b.get("input") == step.stale.input for m in result.original
                     if m["role"] == "assistant" for b in m["content"]
                     if b.get("type") == "tool_use")
    if stale_edit:
        return pitfall(f"{step.call.target} changed on disk after it was read; nothing said so "
                       "after the summary and the agent edited the stale copy (task "
                       f"{'done' if result.summary.success else 'not done'})")
    who = "the rebuild's note" if summarized else "a note the layer attached (no summary)"
    return holds(f"{step.call.target} changed on disk after it was read; {who} said so and "
                 f"the agent edited the current text ({len(edits)} edit(s))")


def _says_changed(result: RunResult, path: str) -> bool:
    """Whether the last history the agent saw says, in any text, that ``path`` changed on
    disk (a note a layer attached without a summary: stage 5's, §10.2)."""
    return any(says_changed(str(b.get("text", b.get("content", ""))), path)
               for m in result.messages if isinstance(m["content"], list) for b in m["content"])


def forgets_files(cell: Cell) -> Verdict:
    if cell.variant == "no-mtime-notes":
        return _stale(cell)
    if cell.variant == "no-rebuild":
        return _forgets(cell)
    both = (_forgets(cell), _stale(cell))
    worst = next((v for v in both if v.status != "holds"), None)
    return worst or holds(" ; ".join(v.evidence for v in both))
