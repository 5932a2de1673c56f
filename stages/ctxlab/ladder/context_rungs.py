"""Rungs of stages 1–3: the estimate, overflow, orphans, thrashing, the read exemption and the
parallel explosion (guide §14 stages 1–3; §2.4, §6.10, §9.1, §9.2, §9.5, §12.2)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from ..models import get as model_spec
from ..report.compare import LARGE_WINDOW_MODEL
from ..runner import SYSTEM, RunResult, load_stage, run
from ..session import Session
from ..sim import Simulator, make_client
from ..telemetry.summary import duplicate_call_rate, longest_unchanged_run
from ..tokens import count_messages, count_text
from ..workbook.layout import repo_root
from . import paired, runs
from .core import Cell, Verdict, broken, holds, pitfall
from .evidence import PTL, agent, error_text, events, pct, rejected, rejected_size, turns

WINDOW_200K = "claude-haiku-4-5"
HELD_OUT = Path("fixtures") / "texts" / "held-out"
ESTIMATE_LIMIT = 0.10
LONG_TURNS = 40
"""The turn cap of the long task's runs: the read-exemption variant loops without it; every
other cell ends well before (22 turns), so overflow, orphans, thrash and the read exemption
share one run per stage."""


def held_out() -> list[Path]:
    """The texts no estimate was fitted on (fixtures/texts/held-out)."""
    return sorted(p for p in (repo_root() / HELD_OUT).iterdir() if p.is_file()
                  and p.name != "README.md")


PARTS = 4
JUDGED = 2
"""The held-out text arrives in ``PARTS`` parts, one request each (as tool results do); the
requests from the third on are judged, when stage 5 has two usages to calibrate on (§9.5)."""


def _sizes(stage: int, text: str, root: Path) -> list[tuple[int, int]]:
    """(the size the stage works with, the API's count) for each judged request of a session
    in which ``text`` arrives part by part: stage 5's calibrated size, else its estimate."""
    module = load_stage(stage)
    session = Session(make_client(Simulator()), WINDOW_200K, [{"type": "text", "text": SYSTEM}],
                      [], root)
    layer = module.make_layer() if stage > 1 else None
    calibration = getattr(layer, "calibration", None)
    step = -(-len(text) // PARTS)
    history: list[dict] = []
    sizes = []
    for start in range(0, len(text), step):
        history.append({"role": "user", "content": [{"type": "text",
                                                      "text": text[start:start + step]}]})
        sent = layer.prepare(history, session) if layer is not None else history
        size = module.estimate_tokens(sent, session.system, session.tools)
        if calibration is not None:  # stage 5 decides on its calibrated size
            size = calibration.size(module.estimate_tokens(sent),
                                    module.estimate_tokens([], session.system, session.tools))
        counted = session.client.messages.count_tokens(
            model=session.model, messages=sent, system=session.system).input_tokens
        sizes.append((size, counted))
        reply = session.create(sent)
        history = [*sent, {"role": "assistant",
                           "content": [{"type": "text", "text": reply.content[0].text}]}]
    return sizes[JUDGED:]


def estimate_bias(cell: Cell) -> Verdict:
    errors = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in held_out():
            sizes = _sizes(cell.stage, path.read_text(encoding="utf-8"), Path(tmp))
            errors[path.name] = max(((size - counted) / counted for size, counted in sizes),
                                    key=abs)
    shown = ", ".join(f"{name} {error:+.0%}" for name, error in errors.items())
    worst = max(errors.values(), key=abs)
    what = "calibrated size" if cell.stage == 5 else "estimate"
    text = (f"{what} vs the API's count, worst of requests {JUDGED + 1}-{PARTS} as each of "
            f"{len(errors)} held-out texts arrives in {PARTS} parts: {shown}")
    if abs(worst) > ESTIMATE_LIMIT:
        return pitfall(f"{text} (limit ±{ESTIMATE_LIMIT:.0%})")
    return holds(f"{text}: all within ±{ESTIMATE_LIMIT:.0%}")


def _long(cell: Cell, seed: int) -> RunResult:
    return runs.get(cell, "long-task", model=WINDOW_200K, max_turns=LONG_TURNS, seed=seed).result


def _rejections(cell: Cell, seed: int) -> float:
    return sum(bool(r.error and PTL in r.error["message"]) for r in _long(cell, seed).records)


def _outgrew(cell: Cell, seed: int) -> str | None:
    """The mechanism: the whole history outgrew the window with nothing removed."""
    result = _long(cell, seed)
    failed = rejected(result, PTL)
    if failed is None or any(e["layer"] != "offload" for _, e in events(result)):
        return None
    return (f"{count_messages(result.original):,} tokens entered the context and nothing was "
            f"removed: turn {failed.turn} rejected, {rejected_size(failed)}")


def overflow(cell: Cell) -> Verdict:
    window = model_spec(WINDOW_200K).context_window
    entered = count_messages(_long(cell, 0).original)
    if entered <= window:
        return broken(f"only {entered:,} tokens entered the context: no overflow possible")
    weak_side, partner = paired.sides(cell, 2)
    verdict = paired.judge(cell, partner, weak_side=weak_side,
                           name="requests rejected as too long (long task)",
                           quantity=_rejections, mechanism=_outgrew)
    if weak_side:
        return verdict
    removed = [(s, f) for s in paired.SEEDS if (f := rejected(_long(cell, s), PTL)) is not None]
    peaks = [max(r.reported_input_tokens for r in agent(_long(cell, s))) / window
             for s in paired.SEEDS]
    return Verdict(verdict.status, f"{verdict.evidence}; the largest accepted request "
                   f"{pct(min(peaks))}–{pct(max(peaks))} of the window" + "".join(
                       f"; seed {s}: turn {f.turn} rejected, {rejected_size(f)}, although "
                       "history was removed (the cut trusts an estimate below the API's "
                       "count: rung estimate-bias)" for s, f in removed))


def orphan_tool_result(cell: Cell) -> Verdict:
    result = _cut_run(cell)
    cuts = events(result, "truncate", "snip", "summary", "blocking")
    if not cuts:
        return broken("no history was cut: nothing could orphan a tool_result")
    failed = rejected(result, "tool_result")
    if failed is not None:
        return pitfall(f"a cut at turn {cuts[0][0]}; the next request was rejected: "
                       f"{error_text(failed)}")
    return holds(f"history cut at turn(s) {turns(cuts)}; every request accepted, "
                 "no tool_result without its tool_use")


def _cut_run(cell: Cell) -> RunResult:
    if cell.stage == 2:
        return runs.get(cell, "long-task", model=WINDOW_200K, max_turns=LONG_TURNS).result
    return runs.get(cell, "constraint", model="ctxlab-sim-32k").result


THRASH_MARGIN = 0.05
"""How far a stage's duplicate-call rate may exceed the honest baseline's (keep-everything on
the same scenario and seed) before it counts as thrash. Real Claude Code sessions that never
compacted (17 logs of ``../shared/transcripts`` and ``../shared/sessions`` with at least five
calls) repeat 1.7 % of their calls pooled, with a spread (standard deviation) of 4.3 points;
16 of the 17 stay within 5 points of the pooled rate, the last one is a polling subagent."""
THRASH_RUN = 3


def _lost(result: RunResult) -> tuple[float, int, int]:
    """(duplicate-call rate, longest unchanged run, calls set apart) of a run with the calls
    that fetched again a fact the model missed in view left out: those are context rot (§4),
    counted apart (``misses``); thrash is what a layer's removals cost (§12.2)."""
    kept = [r for r in result.records if not r.misses]
    apart = sum(len(r.tool_calls) for r in result.records if r.misses)
    return duplicate_call_rate(kept), longest_unchanged_run(kept), apart


def thrash(cell: Cell) -> Verdict:
    result = runs.get(cell, "long-task", model=WINDOW_200K, max_turns=LONG_TURNS).result
    removed = events(result)
    if not removed:
        return broken("nothing left the context: no reason to fetch anything again")
    base = run(None, "long-task", model=LARGE_WINDOW_MODEL)
    rate, longest, apart = _lost(result)
    base_rate = _lost(base)[0]
    figures = (f"duplicate-call rate {pct(rate)} against keep-everything's {pct(base_rate)} "
               f"({LARGE_WINDOW_MODEL}, same seed), longest unchanged run {longest}"
               + (f"; {apart} call(s) fetching again a fact missed in view counted apart "
                  f"({len(result.summary.misses)} miss(es), §4)" if apart else ""))
    if rate > base_rate + THRASH_MARGIN or longest >= THRASH_RUN:
        return pitfall(f"{figures} after {removed[0][1]['layer']} at turn {removed[0][0]} "
                       f"(§12.2: over the baseline by {pct(THRASH_MARGIN)} or a run of "
                       f"{THRASH_RUN})")
    layers = sorted({str(e["layer"]) for _, e in removed})
    return holds(f"{figures}, although {'/'.join(layers)} removed content "
                 f"{len(removed)} time(s)")


def _offloaded_reads(result: RunResult) -> tuple[int, int]:
    """(reads of an offloaded copy, those whose result was offloaded again: a result that
    names a copy other than the one it read; one cleared later, pointing back to the copy it
    read, starts no loop)."""
    reads = again = 0
    names: dict[str, str] = {}
    for message in result.original:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_use" and block["name"] == "read_file" \
                    and str(block["input"].get("path", "")).startswith(".task_outputs/"):
                names[block["id"]] = str(block["input"]["path"])
    reads = len(names)
    for message in result.messages:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result" and block["tool_use_id"] in names:
                named = set(re.findall(r"\.task_outputs/\S+?\.txt", str(block.get("content", ""))))
                again += bool(named - {names[block["tool_use_id"]]})
    return reads, again


def read_exemption_loop(cell: Cell) -> Verdict:
    result = runs.get(cell, "long-task", model=WINDOW_200K, max_turns=LONG_TURNS).result
    reads, again = _offloaded_reads(result)
    if not reads:
        return broken("the agent never read an offloaded copy back")
    if again:
        return pitfall(f"{reads} reads of offloaded copies, {again} of them offloaded again "
                       f"(duplicate-call rate {pct(result.summary.duplicate_call_rate)}, "
                       f"{'task not done' if not result.summary.success else 'done'})")
    return holds(f"{reads} read(s) of offloaded copies, each kept in full: the task completes "
                 f"in {result.summary.turns} turns")


def _largest(result: RunResult) -> int:
    """The largest request the run sent, a rejected one by the size the API reported."""
    sizes = [r.reported_input_tokens for r in agent(result)]
    for record in result.records:
        found = record.error and re.search(r"(\d+) tokens > \d+ maximum", record.error["message"])
        if found:
            sizes.append(int(found.group(1)))
    return max(sizes, default=0)


def _flood(cell: Cell, seed: int) -> RunResult:
    return runs.get(cell, "parallel-flood", model=WINDOW_200K, seed=seed).result


def _flood_share(cell: Cell, seed: int) -> float:
    return _largest(_flood(cell, seed)) / model_spec(WINDOW_200K).context_window


def _exploded(cell: Cell, seed: int) -> str | None:
    result = _flood(cell, seed)
    failed = rejected(result, PTL)
    burst = max((m for m in result.original if m["role"] == "user"
                 and isinstance(m["content"], list)),
                key=lambda m: sum(b.get("type") == "tool_result" for b in m["content"]))
    results = [b for b in burst["content"] if b.get("type") == "tool_result"]
    if failed is None or len(results) < 2:
        return None
    chars = sum(len(str(b.get("content", ""))) for b in results)
    before = [r.reported_input_tokens for r in agent(result) if r.turn < failed.turn]
    budget = (", each under the per-result budget, none over the message's"
              if cell.stage >= 3 else "")  # stages 1 and 2 have no budget at all
    return (f"one message of {len(results)} parallel results ({chars:,} characters{budget}) "
            f"took the request from {max(before, default=0):,} tokens to "
            f"{rejected_size(failed)}")


def parallel_explosion(cell: Cell) -> Verdict:
    weak_side, partner = paired.sides(cell, 3)
    return paired.judge(cell, partner, weak_side=weak_side,
                        name="the largest request (a rejected one by its reported size) as a "
                             "share of the 200K window", quantity=_flood_share,
                        mechanism=_exploded, fmt=pct)


HISTORY_TURNS = 45  # enough for the small turns to pass a 32K window several times over


def history_fills_window(cell: Cell) -> Verdict:
    result = runs.get(cell, "chat-heavy", model="ctxlab-sim-32k", max_turns=HISTORY_TURNS).result
    window = model_spec("ctxlab-sim-32k").context_window
    biggest = max((count_text(str(b.get("content", ""))) for m in result.original
                   if isinstance(m["content"], list) for b in m["content"]
                   if b.get("type") == "tool_result"), default=0)
    failed = rejected(result, PTL)
    rounds = sum(m["role"] == "assistant" for m in result.messages)
    if failed is not None:
        offloads = len(events(result, "offload"))
        return pitfall(f"{rounds} rounds, the largest tool result {biggest:,} tokens, "
                       f"{offloads} offloaded: turn {failed.turn} rejected, "
                       f"{rejected_size(failed)}")
    last = agent(result)[-1] if agent(result) else None
    if last is not None and last.reported_input_tokens + last.output_tokens >= window:
        return pitfall(f"{rounds} rounds, the largest tool result {biggest:,} tokens: at turn "
                       f"{last.turn} the history took {last.reported_input_tokens:,} of the "
                       f"{window:,} window and the answer was cut where the window ends "
                       "(model_context_window_exceeded), the task unfinished")
    entered = count_messages(result.original)
    if entered <= window:
        return broken(f"only {entered:,} tokens entered the context: the window never fills")
    compactions = events(result, "summary", "snip", "microcompact", "truncate")
    return holds(f"{entered:,} tokens of small turns in {result.summary.turns} turns (the "
                 f"largest result {biggest:,}) through a {window:,} window: "
                 f"{len(compactions)} compactions, no request rejected")
