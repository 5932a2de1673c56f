"""``ctxlab demo``: a short tour of the offline API through the genuine SDK client.

Three things a context layer lives with (guide §6, §9.2, §14 stage 1): the prompt cache
(write once, read on later turns, cold again after the TTL), the window (``prompt is too long``)
and tool pairing (an orphan ``tool_result`` is a 400). Then one line per stage: whether it runs
now or needs the learner's exercises first (in a handed-out copy, the stages handed out).
"""

from __future__ import annotations

import argparse
from typing import Any

import anthropic
from rich.console import Console
from rich.table import Table

from .. import models
from ..sim import Simulator, make_client
from ..tokens import CAVEAT
from ..view import explain_error, figures
from ..workbook.ready import TASK, readiness
from .common import print_json

MODEL = models.DEFAULT_MODEL
SMALL = "ctxlab-sim-32k"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("demo")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(run=run)


def _system_prompt() -> list[dict[str, Any]]:
    rules = "\n".join(f"Rule {n}: keep change {n} small, tested and reversible; explain it."
                      for n in range(1, 260))
    return [{"type": "text", "text": "You are a careful coding agent.\n" + rules,
             "cache_control": {"type": "ephemeral"}}]


def _cache_tour(client: anthropic.Anthropic, sim: Simulator) -> list[dict[str, Any]]:
    """Five calls of a growing conversation; an idle gap past the 5-minute TTL before the last."""
    history: list[dict[str, Any]] = []
    rows = []
    for turn in range(1, 6):
        if turn == 5:
            sim.clock.advance(6 * 60)
        question = f"Question {turn}: what should change {turn} look like?"
        history.append({"role": "user", "content": [
            {"type": "text", "text": question, "cache_control": {"type": "ephemeral"}}]})
        reply = client.messages.create(model=MODEL, max_tokens=200, system=_system_prompt(),
                                       messages=history)
        history[-1]["content"][0].pop("cache_control")
        history.append({"role": "assistant", "content": [b.model_dump() for b in reply.content]})
        u = reply.usage
        cost = models.cost_usd(models.get(MODEL), input_tokens=u.input_tokens,
                               output_tokens=u.output_tokens,
                               cache_read=u.cache_read_input_tokens or 0,
                               write_5m=u.cache_creation.ephemeral_5m_input_tokens,
                               write_1h=u.cache_creation.ephemeral_1h_input_tokens)
        rows.append({"turn": turn, "clock_s": round(sim.clock.now, 1),
                     "cache_read": u.cache_read_input_tokens,
                     "cache_write": u.cache_creation_input_tokens, "uncached": u.input_tokens,
                     "output": u.output_tokens, "cost_usd": round(cost, 6)})
    return rows


def _errors(client: anthropic.Anthropic) -> list[dict[str, str]]:
    """Two requests the API rejects: an overflowing prompt and an orphan tool_result."""
    found = []
    long_text = "All work and no play makes a dull agent. " * 4_000
    orphan = [{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "42 lines"}]}]
    for label, model, messages in (
            ("overflow", SMALL, [{"role": "user", "content": long_text}]),
            ("orphan tool_result", MODEL, orphan)):
        try:
            client.messages.create(model=model, max_tokens=100, messages=messages)
        except anthropic.APIStatusError as error:
            found.append({"case": label, "status": str(error.status_code),
                          "type": str(error.type), "message": str(error.api_message)})
    return found


def run(args: argparse.Namespace) -> int:
    sim = Simulator()
    client = make_client(sim)
    rows = _cache_tour(client, sim)
    errors = _errors(client)
    stages = readiness()
    if args.json:
        print_json({"model": MODEL, "cache_tour": rows, "errors": errors,
                    "stages": [{"stage": s.stage, "own": s.own, "missing": list(s.missing)}
                               for s in stages]})
        return 0
    console = Console()
    console.rule("[bold]ctxlab demo[/]: the offline Messages API, through the real SDK client")
    table = Table(title=f"Prompt cache on {MODEL}: one breakpoint on the system prompt, one "
                        "on the newest message", caption=CAVEAT)
    figures(table, "turn", "clock (s)", "cache read", "cache write", "uncached", "output",
            "cost $")
    for r in rows:
        table.add_row(str(r["turn"]), str(r["clock_s"]),
                      *(f"{r[k]:,}" for k in ("cache_read", "cache_write", "uncached", "output")),
                      str(r["cost_usd"]))
    console.print(table)
    console.print("Turns 2–4 read the prefix written by the turn before. Before turn 5 the "
                  "simulated clock jumps 6 minutes, past the 5-minute TTL: the cache is cold "
                  "and the whole prefix is written again (§6.7).\n")
    for error in errors:
        console.print(f"[bold]{error['case']}[/]: HTTP {error['status']} {error['type']}")
        console.print(explain_error(error["type"], error["message"]))
    console.rule(f"[bold]The stages[/], each tried on {TASK}")
    for line in (s.line() for s in stages):
        console.print(line, highlight=False)
    if any(s.missing for s in stages):
        console.print("`ctxlab grade` lists what is left; `ctxlab hint N.M` gives a hint.",
                      highlight=False)
    console.print("Next: [bold]make test[/] runs the conformance suite; "
                  "[bold]ctxlab serve[/] puts this simulator on a local port.")
    return 0
