"""``ctxlab serve``: the simulator on a local HTTP port for any Anthropic-compatible client.

Its clock runs with the wall clock (plus simulated latency), so cache TTLs, rate-limit buckets
and Message Batches move while a client waits; limits are on by default (the Start tier)."""

from __future__ import annotations

import argparse
from datetime import date

from rich.console import Console

from .. import models
from ..brain import simulator_for
from ..scenarios import ScenarioError
from ..sim import Simulator
from ..sim.clock import WallClock
from ..sim.faults import KINDS, parse_spec
from ..sim.ratelimit import Limits, RateLimiter
from ..sim.server import SimServer
from .common import UserError, add_rot_option, bounded_int


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "serve",
        description="Serve the offline Messages API. Point a client at it with "
                    "ANTHROPIC_BASE_URL=http://HOST:PORT (any API key is accepted).")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=lambda t: bounded_int(t, 0, 65535), default=8765,
                        help="port, 0–65535 (default 8765; 0 = any free port)")
    parser.add_argument("--scenario", help="answer as this scenario's agent (the client runs "
                                           "the tools); default: an echo model")
    parser.add_argument("--seed", type=int, default=0, help="the agent's seed (default 0)")
    parser.add_argument("--faults", metavar="SPEC", default="",
                        help="inject API failures: comma-separated KIND (next request), "
                             "KIND*N (next N) or KIND@RATE (each request, seeded by --seed); "
                             f"kinds: {', '.join(KINDS)}. Example: rate_limit*2,overloaded@0.1")
    parser.add_argument("--rate-limits", metavar="SPEC", default="",
                        help="per-minute limits, reported in anthropic-ratelimit-* headers and "
                             "enforced with 429 + retry-after: rpm=N,itpm=N,otpm=N,batch-rpm=N "
                             "(any subset; default the docs' Start tier: 1000 RPM, 2,000,000 "
                             "ITPM, 400,000 OTPM, batch 1000 RPM); 'off' for none")
    parser.add_argument("--date", type=_day, default=models.TABLE_DATE, metavar="YYYY-MM-DD",
                        help="the day the model table is read on: a model retired by then "
                             "answers 404, a deprecated one still answers (default "
                             f"{models.TABLE_DATE}, the day the table was last checked)")
    parser.add_argument("--quiet", action="store_true", help="do not log each request")
    add_rot_option(parser)
    parser.set_defaults(run=run)


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date like 2026-12-01") from None


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    try:
        sim = simulator_for(args.scenario, seed=args.seed) if args.scenario else Simulator()
        sim.faults = parse_spec(args.faults, seed=args.seed)
    except ScenarioError as error:
        raise UserError(str(error)) from None
    except ValueError as error:
        raise UserError(f"--faults: {error}") from None
    sim.today = args.date
    sim.clock = WallClock()  # a client that waits (retry-after, a batch poll) sees time pass
    if args.rate_limits.strip() != "off":
        try:
            sim.rate_limits = RateLimiter(Limits.parse(args.rate_limits), sim.clock.now)
        except ValueError as error:
            raise UserError(f"--rate-limits: {error}") from None
    try:
        server = SimServer(sim, args.host, args.port,
                           log=None if args.quiet else console.print)
    except OSError as error:
        raise UserError(f"cannot listen on {args.host}:{args.port}: {error.strerror}") from None
    agent = f"; answering as {args.scenario}'s agent, context rot {args.rot}" \
        if args.scenario else ""
    console.print(f"ctxlab simulator listening on [bold]{server.url}[/] "
                  f"(export ANTHROPIC_BASE_URL={server.url}){agent}; Ctrl-C to stop")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        console.print("stopped")
    finally:
        server.server_close()
    return 0
